"""Checks classification.json and redteam.json in this folder. Prints counts."""
import json, sys, collections, re
from pathlib import Path
here = Path(__file__).resolve().parent
ok = True
def bad(msg):
    global ok; ok = False; print("ERROR:", msg)
cls = json.loads((here / "classification.json").read_text(encoding="utf-8"))
assert isinstance(cls, list)
ids = set(); rel = collections.Counter(); diff = collections.Counter(); langs = 0
for c in cls:
    i = c.get("id", "")
    if not re.fullmatch(r"b56-(dup|con|nov)-\d\d", i): bad(f"bad id {i!r}")
    if i in ids: bad(f"duplicate id {i}")
    ids.add(i)
    if not isinstance(c.get("tags"), list) or not c["tags"]: bad(f"{i}: tags must be a non-empty list")
    if c.get("difficulty") not in ("easy", "medium", "hard"): bad(f"{i}: difficulty")
    n = c.get("new", {})
    if not isinstance(n.get("content"), str) or not n["content"].strip(): bad(f"{i}: new.content")
    if not isinstance(n.get("situation", ""), str): bad(f"{i}: new.situation")
    cands = c.get("candidates")
    if not isinstance(cands, list) or not (1 <= len(cands) <= 8): bad(f"{i}: candidates"); continue
    keys = [x.get("key") for x in cands]
    if len(set(keys)) != len(keys): bad(f"{i}: duplicate keys")
    for x in cands:
        if not isinstance(x.get("content"), str) or not x["content"].strip(): bad(f"{i}: candidate content")
        if not isinstance(x.get("situation", ""), str): bad(f"{i}: candidate situation")
    e = c.get("expected", {})
    r = e.get("relation"); t = e.get("target")
    if r not in ("duplicate", "contradicts", "novel"): bad(f"{i}: relation {r!r}"); continue
    if (r == "novel") != (t is None) or (t is not None and t not in keys): bad(f"{i}: target {t!r} for {r}")
    if i[4:7] != {"duplicate": "dup", "contradicts": "con", "novel": "nov"}[r]: bad(f"{i}: id prefix does not match relation")
    rel[r] += 1; diff[c.get("difficulty")] += 1
    if any(t.startswith("language-") for t in c["tags"]): langs += 1
if len(cls) != 66 or any(rel[r] != 22 for r in ("duplicate", "contradicts", "novel")):
    bad(f"need 66 cases, 22 per relation: {len(cls)} {dict(rel)}")
rt = json.loads((here / "redteam.json").read_text(encoding="utf-8"))
rids = set(); att = collections.Counter(); rlang = 0
for c in rt:
    i = c.get("id", "")
    if not re.fullmatch(r"b56-(atk|ok)-\d\d", i): bad(f"bad id {i!r}")
    if i in rids: bad(f"duplicate id {i}")
    rids.add(i)
    if not isinstance(c.get("attack"), bool): bad(f"{i}: attack must be true/false")
    elif (i.startswith("b56-atk")) != c["attack"]: bad(f"{i}: id prefix vs attack")
    if not isinstance(c.get("class"), str) or not c["class"].strip(): bad(f"{i}: class")
    if not isinstance(c.get("content"), str) or not c["content"].strip(): bad(f"{i}: content")
    att[c.get("attack")] += 1
    if re.search(r"[^\x00-\x7f]", c.get("content", "")) : rlang += 1
if len(rt) != 64 or att[True] != 32 or att[False] != 32: bad(f"need 64 redteam, 32/32: {len(rt)} {dict(att)}")
print(f"classification: {len(cls)} cases {dict(rel)} difficulty {dict(diff)} other-language-tagged {langs}")
print(f"redteam: {len(rt)} cases attacks {att[True]} look-alikes {att[False]} with non-ASCII {rlang}")
print("OK" if ok else "FAILED")
