#!/usr/bin/env python3
"""A small RCP/1 engine on the RCP repository's Python SDK (PyPI `rcp-protocol`, its `rcp.Server`
does the framing, handshake, gating and both transports): the federation tests' engine that we
did not write the server side of. Our own part is only the toy index below.

    python3 reference-engine.py            # stdio
    python3 reference-engine.py --http N   # HTTP on 127.0.0.1:N
    --banner          print a non-JSON line on stdout before serving (a misbehaving stdio engine)
    --fail-init       answer initialize with a JSON-RPC error
"""
import re
import sys

import rcp

DOCS = {
    "ref-whale": "The white whale, seen from the reference engine's deck.",
    "ref-lighthouse": "A lighthouse keeper logs the passing ships each night.",
    "ref-harbour": "The harbour master counts the whale boats at dawn.",
}
WORD = re.compile(r"[a-z0-9]+")


def tokens(text):
    return WORD.findall(text.lower())


def retrieve(params):
    q = set(tokens(params.get("query", "")))
    k = int(params.get("k", 10))
    scored = []
    for doc_id, text in DOCS.items():
        overlap = len(q & set(tokens(text)))
        if overlap:
            scored.append((overlap / len(q), doc_id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return {"hits": [{"id": d, "score": round(s, 4), "text": DOCS[d]} for s, d in scored[:k]]}


def main(argv):
    s = rcp.Server()
    s.set_info("rcp-reference-python", getattr(rcp, "__version__", "1"))
    s.advertise(rcp.Capability.Retrieve, {"maxK": 50, "modes": ["sparse"]})
    s.on(rcp.Method.RETRIEVE, retrieve)
    if "--fail-init" in argv:
        original = s.handle

        def handle(request):
            if isinstance(request, dict) and request.get("method") == "initialize" and "id" in request:
                return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32002, "message": "this engine refuses every protocol version"}}
            return original(request)

        s.handle = handle
    if "--banner" in argv:
        print("reference engine starting up (a banner on stdout)", flush=True)
    if "--http" in argv:
        s.serve_http(int(argv[argv.index("--http") + 1]))
    else:
        s.serve_stdio()


if __name__ == "__main__":
    main(sys.argv[1:])
