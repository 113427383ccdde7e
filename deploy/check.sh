#!/usr/bin/env bash
# Static checks of deploy/: shell syntax and shellcheck (the scripts, and the sh scripts embedded in
# the Kubernetes manifests), every YAML document loads, the shard Job has the fields deploy/README.md
# relies on, and the ConfigMap's pipeline is valid (when a mediabatch binary is at hand).
# Needs python3 with PyYAML; shellcheck is used when installed. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")"

scripts=(slurm/mediabatch-array.sh slurm/merge.sh slurm/test-cluster.sh check.sh)
for script in "${scripts[@]}"; do bash -n "$script"; done
if command -v shellcheck >/dev/null; then
  shellcheck "${scripts[@]}"
else
  echo "note: shellcheck not installed, skipped" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" kubernetes/*.yaml <<'EOF'
import json, sys, yaml

work, paths = sys.argv[1], sys.argv[2:]
docs = {}
for path in paths:
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if doc is None:
                continue
            assert doc.get("apiVersion") and doc.get("kind"), f"{path}: a document without apiVersion/kind"
            docs[(doc["kind"], doc["metadata"]["name"])] = doc
print(f"{len(docs)} YAML documents load: " + ", ".join(f"{k}/{n}" for k, n in docs))

job = docs[("Job", "mediabatch")]
spec = job["spec"]
pod = spec["template"]["spec"]
[ctr] = pod["containers"]
env = {e["name"]: e for e in ctr["env"]}

def check(cond, what):
    if not cond:
        sys.exit(f"error: indexed-job.yaml: {what}")

n = spec["completions"]
check(spec["completionMode"] == "Indexed", "completionMode must be Indexed")
check(0 < spec["parallelism"] <= n, "parallelism must be 1..completions")
check(env["MEDIABATCH_SHARD_COUNT"]["value"] == str(n), "MEDIABATCH_SHARD_COUNT must equal completions")
merge_env = {e["name"]: e for e in docs[("Job", "mediabatch-merge")]["spec"]["template"]["spec"]["containers"][0]["env"]}
check(merge_env["MEDIABATCH_SHARD_COUNT"]["value"] == str(n), "merge-job.yaml's MEDIABATCH_SHARD_COUNT must equal completions")
check(spec.get("backoffLimitPerIndex", 0) > 0, "backoffLimitPerIndex must be set (FailIndex needs it)")
check(spec.get("podReplacementPolicy") == "Failed", "podReplacementPolicy must be Failed")
check(pod["restartPolicy"] == "Never", "restartPolicy must be Never (podFailurePolicy needs it)")
check(pod.get("terminationGracePeriodSeconds", 30) >= 120, "terminationGracePeriodSeconds too short to drain")

actions = {}
for rule in spec["podFailurePolicy"]["rules"]:
    for code in rule.get("onExitCodes", {}).get("values", []):
        check(rule["onExitCodes"].get("containerName") in (None, ctr["name"]), "onExitCodes names another container")
        actions[code] = rule["action"]
    for cond in rule.get("onPodConditions", []):
        actions[cond["type"]] = rule["action"]
check(actions.get(2) == "FailJob", "exit code 2 must FailJob")
check(actions.get(1) == "FailIndex", "exit code 1 must FailIndex")
check(actions.get("DisruptionTarget") == "Ignore", "DisruptionTarget must be Ignore")

def mib(quantity):
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024 * 1024}
    for suffix, factor in units.items():
        if quantity.endswith(suffix):
            return int(float(quantity[: -len(suffix)]) * factor)
    sys.exit(f"error: indexed-job.yaml: memory {quantity!r}: use Mi or Gi")
limits, requests = ctr["resources"]["limits"], ctr["resources"]["requests"]
check(requests["memory"] == limits["memory"], "memory request must equal the limit")
field = env["MEMORY_LIMIT_MIB"]["valueFrom"]["resourceFieldRef"]
check(field["resource"] == "limits.memory" and field["divisor"] == "1Mi" and field["containerName"] == ctr["name"],
      "MEMORY_LIMIT_MIB must be limits.memory in Mi")
budget = mib(limits["memory"]) - int(env["OVERHEAD_MIB"]["value"])
check(budget > 0 and int(env["OVERHEAD_MIB"]["value"]) >= 100, "the limit must exceed the budget + ~100 MiB")
print(f"Job: {n} shards, budget {budget} MiB under a {limits['memory']} limit, "
      f"exit codes {actions}, grace {pod['terminationGracePeriodSeconds']} s")

mounts = {m["mountPath"]: m for m in ctr["volumeMounts"]}
check(mounts["/data/input"].get("readOnly") is True, "the input must be mounted read-only")
check(not mounts["/data/output"].get("readOnly"), "the output must be writable")
pvc = docs[("PersistentVolumeClaim", "mediabatch-media")]
check(pvc["spec"]["accessModes"] == ["ReadWriteMany"], "the PVC must be ReadWriteMany")

args = " ".join(ctr["args"])
for flag in ("--shard", "--report", "--memory-budget", "--jobs", "--metrics"):
    check(flag in args, f"run lacks {flag}")
check("exec mediabatch run" in args, "the shell must exec mediabatch (SIGTERM goes to PID 1)")

# The embedded scripts, for sh -n and shellcheck; the pipeline, for mediabatch validate.
for name, doc in (("job", job), ("merge", docs[("Job", "mediabatch-merge")])):
    [c] = doc["spec"]["template"]["spec"]["containers"]
    check(c["command"] == ["/bin/sh", "-c"] and len(c["args"]) == 1, f"{name}: expected sh -c SCRIPT")
    with open(f"{work}/{name}.sh", "w") as f:
        f.write("#!/bin/sh\n" + c["args"][0])
pipeline = docs[("ConfigMap", "mediabatch-pipeline")]["data"]["pipeline.json"]
json.loads(pipeline)
with open(f"{work}/pipeline.json", "w") as f:
    f.write(pipeline)
EOF

for script in "$work"/job.sh "$work"/merge.sh; do sh -n "$script"; done
if command -v shellcheck >/dev/null; then
  shellcheck --shell=sh "$work"/job.sh "$work"/merge.sh
fi

mediabatch=${MEDIABATCH:-../.build/release/mediabatch}
if [[ -x $mediabatch ]]; then
  "$mediabatch" validate "$work/pipeline.json"
else
  echo "note: no mediabatch binary ($mediabatch), ConfigMap pipeline not validated" >&2
fi
echo "deploy/: all checks passed"
