#!/usr/bin/env python3
"""Validates JSON files against mediabatch's pipeline schema with the jsonschema package.

Usage: check-against-schema.py SCHEMA FILE...  (run with scripts/test-python.sh's Python)

Checks the schema itself first (draft 2020-12 metaschema; every "default" valid under the
schema it annotates), then prints one JSON line per file: {"file", "verdict", "reason"} with
verdict "accepted", "refused" or "notJSON". Exits 1 if the schema itself is wrong.
"""
import json
import sys

import jsonschema


def defaults_are_valid(schema, validator, path="#"):
    """Every "default" must be a value its own subschema accepts (with $refs resolved from the root)."""
    problems = []
    if isinstance(schema, dict):
        if "default" in schema:
            sub = validator.evolve(schema={k: v for k, v in schema.items() if k != "default"})
            problems += [f"{path}: default {schema['default']!r}: {e.message}" for e in sub.iter_errors(schema["default"])]
        for key, value in schema.items():
            problems += defaults_are_valid(value, validator, f"{path}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            problems += defaults_are_valid(value, validator, f"{path}/{index}")
    return problems


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = defaults_are_valid(schema, validator)
    if problems:
        sys.exit("schema defaults that the schema refuses:\n" + "\n".join(problems))
    for name in sys.argv[2:]:
        try:
            with open(name) as f:
                document = json.load(f)
        except ValueError as error:
            print(json.dumps({"file": name, "verdict": "notJSON", "reason": str(error)}))
            continue
        error = jsonschema.exceptions.best_match(validator.iter_errors(document))
        verdict = {"verdict": "accepted"} if error is None else {
            "verdict": "refused", "reason": f"{error.json_path}: {error.message}"}
        print(json.dumps({"file": name, **verdict}))


if __name__ == "__main__":
    main()
