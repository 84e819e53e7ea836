"""sha256 of every BBH file leak-metrics downloads, for the pinned upstream commit.

How they were obtained: ``sha256sum bbh/*.json cot-prompts/*.txt`` over the staged copy in
``/work/shared/data/bbh``, which its SOURCE.md records as copied byte for byte from
suzgunmirac/BIG-Bench-Hard at commit ``9ee07bd481feebf959a6b59d61ea57bdcf30964d`` (2022-10-22,
"Adding canary strings"; 27 tasks, 6,511 examples, bbh/ 2,680,604 bytes, cot-prompts/ 81,831
bytes - counts the copy matches). The download itself could not be run where these were computed
(no internet), so a hash is the staged copy's; a mismatching download is refused, not trusted.
"""

from __future__ import annotations

BBH_COMMIT = "9ee07bd481feebf959a6b59d61ea57bdcf30964d"

SHA256: dict[str, str] = {
    "bbh/boolean_expressions.json": "ea6c754ec005e2d3f2d085d349a740f593b5764f32ea4638ffed4cfc0061b12a",
    "bbh/causal_judgement.json": "6e8bca44dd402008ed41c07a3d0a1d5e7b03db7001a7e002fcdf4c60985ea081",
    "bbh/date_understanding.json": "0148d4ac5fca05b2f82373e5fef7208e15363b9c6079493034d77b3dab496bf5",
    "bbh/disambiguation_qa.json": "cf06df9ebf911b883671cb1b35d3fbd1a1c306b19b9e9a012407e596c85fe8c6",
    "bbh/dyck_languages.json": "3f9badedf15c2be1ce53d94fdf016299bb30ba231ef087ab9f51a7ed6d0bdc25",
    "bbh/formal_fallacies.json": "4c1adb664821157faade1d4153685403afcc02648f3c180a608a18f17f589629",
    "bbh/geometric_shapes.json": "07be68a124420caa2ebc0b2c858ad79fc55c5c8806170e496e1e17ebfb11f31c",
    "bbh/hyperbaton.json": "b6d7f55c75f5d02f2987a4f3123802dfa093872089a56a334144aae8a7264fdc",
    "bbh/logical_deduction_five_objects.json": "d2df31394b903b7f0e085d42a69572a092987856eac076799017d70ef266fa8f",
    "bbh/logical_deduction_seven_objects.json": "2896c7e3482eea318dd37bcc370d24ec3cc91e8374c1784287b5dbd38a529e33",
    "bbh/logical_deduction_three_objects.json": "e590fae72e3a6041fbd23bd8ff6b74baf44ca563f6ba40a041c55e7b867c1681",
    "bbh/movie_recommendation.json": "a8b53a87ee21a865b7248e694f388a9b8f7cf6b839b11d44796a2dd3fc088983",
    "bbh/multistep_arithmetic_two.json": "c9d5a6433c9b78256422a15c78463949c8bec8d85607aa28b52d7234ad4a8595",
    "bbh/navigate.json": "b7944dfd3c81da5c4815bd75b00d6fa3c64140823498e78ed496f4c3d36f7f0d",
    "bbh/object_counting.json": "8acef14dbbdd40d2326ef7755750b6b5fe919fef06276af1bab3f1c297f022ff",
    "bbh/penguins_in_a_table.json": "bb87ee449698eee51215e025a453b1bcb2f5e6589c2063b2c79e68b8f0655228",
    "bbh/reasoning_about_colored_objects.json": "0a8850cf95166020fce7a78244026ceedd7ea839302471512b4f8744e85a6a49",
    "bbh/ruin_names.json": "b6f723aef2bafdd4c7bfc3c7e0329c7e8a8279391a609969c8ed76c9319f5f7f",
    "bbh/salient_translation_error_detection.json": "becf3eb8dd53c821a555ecd5c1334ecd93eb25f980e63be963c518e7138de5da",
    "bbh/snarks.json": "54a0661fe2de06167645a4965e6bcf963c4ba307e76262a7c750998b0e3d0d0e",
    "bbh/sports_understanding.json": "63ca262858f6176864515cd8cf53cdaa40839ebecc155b726d77930855d167bf",
    "bbh/temporal_sequences.json": "92a1189faaa84aacc4c405aaa13f13f48c2992eb884772eedb622505252baef5",
    "bbh/tracking_shuffled_objects_five_objects.json": "2063a46a4fb484236ed4310523606543a3e1dd4a4dc34eda65d407910ece25a5",
    "bbh/tracking_shuffled_objects_seven_objects.json": "b59fd05b850c37cf57cb514ae1e6975c00b1638ade2291722056b2af3c54084d",
    "bbh/tracking_shuffled_objects_three_objects.json": "546cc7bf10c6a01a6a4c17ae28a4966485f21f29fd5d111f37858ec78e354f6b",
    "bbh/web_of_lies.json": "3e60323f8514a107fdb4edf35f8832a9171c5a09c0eaa47823559de905e8ab8b",
    "bbh/word_sorting.json": "2a6132d2c99f00d0d2eb1113ac6b4a918bd969d863c48749210d969713db8d43",
    "cot-prompts/boolean_expressions.txt": "685affba97425cdf3549d5d313ba876caed2fa7c8a4cf1ea7549faf22179609d",
    "cot-prompts/causal_judgement.txt": "14377e36cccb084b7d0fe73988d08696f7675d712b02d3ae1f5f7f12c77028ea",
    "cot-prompts/date_understanding.txt": "a0a13c392f689a1828f5f6ffb9dee3d44483794490da5d92f0e2a723787b1cfb",
    "cot-prompts/disambiguation_qa.txt": "794fd259297972a4c963a5d13a84dc221edde460de27fa5d8fd64299a2001597",
    "cot-prompts/dyck_languages.txt": "b0836603007ec659ed685458647fb6d7543543304e7aca909b995d0c3aff22b2",
    "cot-prompts/formal_fallacies.txt": "10c06cc362520e9b8dddfc4861e263ff668d228a52d958dcc69f09f1d224935a",
    "cot-prompts/geometric_shapes.txt": "f36d9893507eb518d84f388fb677dc0226c74a98873700de0b556548d65d3f76",
    "cot-prompts/hyperbaton.txt": "19898af91c35cb26bbdf5fdb6f6fb17e138677250332e2994005625ffb50b261",
    "cot-prompts/logical_deduction_five_objects.txt": "4ed65246c0c1c4b0b4053d784181892b842bce19cf4358c976f34b1a434ef034",
    "cot-prompts/logical_deduction_seven_objects.txt": "4ed65246c0c1c4b0b4053d784181892b842bce19cf4358c976f34b1a434ef034",
    "cot-prompts/logical_deduction_three_objects.txt": "4ed65246c0c1c4b0b4053d784181892b842bce19cf4358c976f34b1a434ef034",
    "cot-prompts/movie_recommendation.txt": "cdf765634713b057091d541b4773dd2c998f81447b0bd8564ae70be4cdf3f5d0",
    "cot-prompts/multistep_arithmetic_two.txt": "a546e0b7cde09037bc144ae5c32c9cf78dafdfac929ae76e2051b2dd8f3671ce",
    "cot-prompts/navigate.txt": "dc2fd733f1867b8c79685f15b83746064534a94bf73468341c2a9dd335be22fc",
    "cot-prompts/object_counting.txt": "e51ffc03fd713a13a379a6c938a523dfc1c2f384f2a8447bd7a12d4458f18833",
    "cot-prompts/penguins_in_a_table.txt": "33be137e76c2a6af0bbacd17a8e7a92801886c0202a45e35ea9c2a88c1f26d51",
    "cot-prompts/reasoning_about_colored_objects.txt": "e4ea02d05b13e8ed9ccc3b0d878bc4df4c5a6fb76c65d39d48d6244f7ff0b9d5",
    "cot-prompts/ruin_names.txt": "731446c6c66bb5258677af1417b599a6a5539be6d74a5afc02cf7a716444ea54",
    "cot-prompts/salient_translation_error_detection.txt": "2c8367f75092202cc507fdbfaaf037b1c1eed38e91289084439738367f0785f7",
    "cot-prompts/snarks.txt": "35084a2a0b86bc4008ab206b838c0b97dd425897dd72198137c3cefc499c0960",
    "cot-prompts/sports_understanding.txt": "2058a9bed717a6edb8ca2f815e88851436a4ee14c8b0d504ccf464865c6d0295",
    "cot-prompts/temporal_sequences.txt": "3e7ebf1e20abe3e219dc6514dcb7474d82db1b2c66acc733cd30af2e9e0b64b0",
    "cot-prompts/tracking_shuffled_objects_five_objects.txt": "2ef54cb2a72052adc3484a76209cb6a6535f194d677e79bcec2e2e71cf3768af",
    "cot-prompts/tracking_shuffled_objects_seven_objects.txt": "2ef54cb2a72052adc3484a76209cb6a6535f194d677e79bcec2e2e71cf3768af",
    "cot-prompts/tracking_shuffled_objects_three_objects.txt": "2ef54cb2a72052adc3484a76209cb6a6535f194d677e79bcec2e2e71cf3768af",
    "cot-prompts/web_of_lies.txt": "c8025ca65ab7f0897c243504c863bda043d04b6e873777536743e94023c929d0",
    "cot-prompts/word_sorting.txt": "a2cdbcfe23abaa97b9787f7c03dbf49b1cfd0ff9e63197b7884bb5cd5a096ca6",
}
