import pytest
from recover_attacks import ModelLoadError, RecordError, get_attack


def test_model_path_that_is_not_a_model(tmp_path, questions):
    bogus = tmp_path / "not-a-model"
    bogus.mkdir()
    (bogus / "notes.txt").write_text("hello")
    with pytest.raises(ModelLoadError, match=f"'{bogus}' is not a model"):
        get_attack("probab").run(str(bogus), None, questions)
    a_file = tmp_path / "weights.bin"
    a_file.write_bytes(b"\0")
    with pytest.raises(ModelLoadError, match=f"'{a_file}' is not a model"):
        get_attack("quantization", method="rtn4").run(str(a_file), None, questions)


def test_model_given_as_saved_path_works(tmp_path, model, tokenizer, questions):
    model.save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    results = get_attack("probab", max_new_tokens=3, num_samples=2).run(
        str(tmp_path / "m"), None, questions, progress=False
    )
    assert all(len(r.responses) == 2 for r in results)


def test_record_without_question_names_index_and_field(model, tokenizer, questions):
    questions[2]["question"] = ""
    with pytest.raises(RecordError, match=r"record #2 \(id 'HS-0'\) is missing field 'question'"):
        get_attack("probab").run(model, tokenizer, questions)


def test_duplicate_ids_rejected(model, tokenizer, questions):
    questions[1]["id"] = "SH-0"
    with pytest.raises(RecordError, match="repeats id 'SH-0'"):
        get_attack("probab").run(model, tokenizer, questions)
