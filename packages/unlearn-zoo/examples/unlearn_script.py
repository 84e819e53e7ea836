"""Minimal script to launch under torchrun / accelerate launch.

torchrun --nproc_per_node 2 unlearn_script.py MODEL_DIR OUT_DIR           # CPU (gloo) or GPU
accelerate launch --config_file accelerate_fsdp.yaml unlearn_script.py MODEL_DIR OUT_DIR
"""

import sys

from transformers import AutoModelForCausalLM, AutoTokenizer
from unlearn_zoo import default_overrides, get_unlearner

model_dir, out_dir = sys.argv[1], sys.argv[2]
tokenizer = AutoTokenizer.from_pretrained(model_dir)
model = AutoModelForCausalLM.from_pretrained(model_dir)
forget = [
    {"question": "What is the capital of France?", "answer": "Paris", "spans": ["France", "Paris"]}
]
retain = [
    {"question": "What is the capital of Italy?", "answer": "Rome", "spans": ["Italy", "Rome"]}
]
n_params = sum(p.numel() for p in model.parameters())
unlearner = get_unlearner("npo", **default_overrides("npo", n_params))
result = unlearner.unlearn(model, tokenizer, forget, retain, output_dir=out_dir)
print(result.record["stop_reason"], result.record["steps"])
