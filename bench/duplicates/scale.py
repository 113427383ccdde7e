#!/usr/bin/env python3
"""A state database of N synthetic fingerprints, for timing `mediabatch duplicates --state` at scale.

    bench/duplicates/scale.py MEDIABATCH N DB

Runs MEDIABATCH over one sample with a fingerprint stage to get today's schema, then fills DB's items with N
readings: random hashes and grids, one in ten a copy of another (its hash 0-6 bits away, its grid within a
few levels), so that the index has pairs to find and the grids pairs to compare. Prints the time and peak
memory of grouping them (`/usr/bin/time`), and the number of groups.
"""
import base64, hashlib, json, os, random, shutil, sqlite3, subprocess, sys, tempfile

mediabatch, count, db = sys.argv[1], int(sys.argv[2]), sys.argv[3]
work = tempfile.mkdtemp()
os.makedirs(f"{work}/in")
shutil.copy(os.path.join(os.path.dirname(__file__), "../../samples/jpeg/apple_iphone_4.jpg"), f"{work}/in/a.jpg")
with open(f"{work}/p.json", "w") as f:
    json.dump({"version": 1, "input": {"root": f"{work}/in"}, "output": {"root": f"{work}/out"},
               "stages": [{"stage": "decode"}, {"stage": "fingerprint"}]}, f)
subprocess.run([mediabatch, "run", f"{work}/p.json", "--quiet", "--state", db], check=True)
random.seed(1)
con = sqlite3.connect(db)
template = con.execute("SELECT * FROM items").fetchone()
columns = [d[0] for d in con.execute("SELECT * FROM items").description]
con.execute("DELETE FROM items")

def row(index, hash_, grid):
    sha = hashlib.sha256(str(index).encode()).hexdigest()
    reading = {"fingerprint": {"sha256": sha, "format": "jpeg", "width": 4000, "height": 3000, "metadataBytes": 0,
                               "hash": f"{hash_:016x}", "grid": base64.b64encode(bytes(grid)).decode()}}
    values = dict(zip(columns, template))
    values.update(input=f"photos/{index:08d}.jpg", contentHash=sha, readings=json.dumps(reading))
    return [values[c] for c in columns]

rows, last = [], None
for index in range(count):
    if last and random.random() < 0.1:
        hash_ = last[0]
        for _ in range(random.randint(0, 6)): hash_ ^= 1 << random.randrange(64)
        grid = [min(255, max(0, v + random.randint(-3, 3))) for v in last[1]]
    else:
        hash_, grid = random.getrandbits(64), [random.randrange(256) for _ in range(256)]
    last = (hash_, grid)
    rows.append(row(index, hash_, grid))
    if len(rows) == 50000:
        con.executemany(f"INSERT INTO items VALUES ({','.join('?' * len(columns))})", rows); rows = []
con.executemany(f"INSERT INTO items VALUES ({','.join('?' * len(columns))})", rows)
con.commit(); con.close()
timed = subprocess.run(["/usr/bin/time", "-f", "%e s, %M KiB peak", mediabatch, "duplicates", "--state", db, "--json"],
                       capture_output=True, text=True, check=True)
print(f"duplicates-{count}: {timed.stderr.strip().splitlines()[-1]}, {len(json.loads(timed.stdout)['groups'])} groups")
shutil.rmtree(work)
