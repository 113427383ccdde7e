#!/usr/bin/env python3
"""A state database of N synthetic fingerprints, for timing `mediabatch duplicates --state` at scale.

    bench/duplicates/scale.py MEDIABATCH N DB

Runs MEDIABATCH over one sample with a fingerprint stage to get today's schema, then fills DB's items with N
readings: random hashes and pictures, one in ten a copy of another (its hashes 0-4 bits away, its picture
within a few levels), so that the index has pairs to find and the pictures pairs to compare. Prints the time and peak
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
con.execute("DELETE FROM bulkReadings")

WINDOWS, SIDE = 15, 64

def row(index, hashes, picture):
    """The item's row, and its bulkReadings row (the picture: the state keeps long strings apart)."""
    sha = hashlib.sha256(str(index).encode()).hexdigest()
    reading = {"fingerprint": {"sha256": sha, "format": "jpeg", "width": 4000, "height": 3000, "metadataBytes": 0,
                               "hashes": [f"{h:016x}" for h in hashes]}}
    values = dict(zip(columns, template))
    values.update(input=f"photos/{index:08d}.jpg", contentHash=sha, readings=json.dumps(reading, sort_keys=True))
    bulk = json.dumps({"fingerprint": {"picture": base64.b64encode(picture).decode()}})
    return [values[c] for c in columns], (values["input"], bulk)

def insert(rows):
    con.executemany(f"INSERT INTO items VALUES ({','.join('?' * len(columns))})", [item for item, _ in rows])
    con.executemany("INSERT INTO bulkReadings VALUES (?, ?)", [bulk for _, bulk in rows])

rows, last = [], None
for index in range(count):
    if last and random.random() < 0.1:
        flips = 0
        for _ in range(random.randint(0, 4)): flips ^= 1 << random.randrange(64)
        hashes = [h ^ flips for h in last[0]]
        picture = bytearray(last[1])
        for _ in range(64):
            at = random.randrange(len(picture))
            picture[at] = min(255, max(0, picture[at] + random.randint(-3, 3)))
    else:
        hashes, picture = [random.getrandbits(64) for _ in range(WINDOWS)], random.randbytes(SIDE * SIDE)
    last = (hashes, picture)
    rows.append(row(index, hashes, picture))
    if len(rows) == 50000:
        insert(rows); rows = []
insert(rows)
con.commit(); con.close()
timed = subprocess.run(["/usr/bin/time", "-f", "%e s, %M KiB peak", mediabatch, "duplicates", "--state", db, "--json"],
                       capture_output=True, text=True, check=True)
print(f"duplicates-{count}: {timed.stderr.strip().splitlines()[-1]}, {len(json.loads(timed.stdout)['groups'])} groups")
shutil.rmtree(work)
