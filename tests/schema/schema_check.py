#!/usr/bin/env python3
"""Validates pack files against iolab's JSON Schemas (assets/schema/), for it_schema.

  schema_check.py SCHEMA_DIR valid PACK...    every file of every pack follows the schema
  schema_check.py SCHEMA_DIR rejects PACK     at least one file of the pack breaks it
  schema_check.py SCHEMA_DIR keys KINDS.json  each kind's keys in the schema are iolab's own

Prints one line per problem (file: path: message) and exits 1 when the answer is no.
"""
import json
import os
import sys

import jsonschema


def load_schemas(d):
    out = {}
    for name in ("pack", "lesson"):
        with open(os.path.join(d, name + ".schema.json"), encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft7Validator.check_schema(s)
        out[name] = jsonschema.Draft7Validator(s)
    return out


def pack_files(pack):
    """pack.json and the lesson files it lists (or every .json when it cannot be read)."""
    files = [os.path.join(pack, "pack.json")]
    try:
        with open(files[0], encoding="utf-8") as f:
            lessons = json.load(f).get("lessons", [])
    except (OSError, ValueError, AttributeError):
        lessons = []
    if not isinstance(lessons, list) or not all(isinstance(x, str) for x in lessons):
        lessons = []
    names = [l + ".json" for l in lessons] or sorted(
        n for n in os.listdir(pack) if n.endswith(".json") and n != "pack.json")
    files += [os.path.join(pack, n) for n in names if os.path.exists(os.path.join(pack, n))]
    return files


def problems(schemas, path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["not JSON (%s)" % e]
    v = schemas["pack" if os.path.basename(path) == "pack.json" else "lesson"]
    return ["/".join(str(p) for p in e.absolute_path) + ": " + message(e)
            for e in v.iter_errors(doc)]


def message(e):
    """The validator's message, except where the schema says the problem in its own words.

    jsonschema reports a failed "contains" by quoting the whole array ("None of [...] are valid
    under the given schema"), which names no problem; the schema's "contains" carries a
    "description" that does (lesson.schema.json: a question with no correct answer).
    """
    if e.validator == "contains" and isinstance(e.validator_value, dict) and \
            e.validator_value.get("description"):
        return e.validator_value["description"]
    # A schema that says its problem in words ("errorMessage", as ajv-errors reads it in an
    # editor): a failed "oneOf" or "not", or a pattern of fifty names, reads badly as the
    # validator words it ("... is not valid under any of the given schemas").
    if isinstance(e.schema, dict) and isinstance(e.schema.get("errorMessage"), str):
        return e.schema["errorMessage"]
    return e.message[:200]


def main():
    schemas = load_schemas(sys.argv[1])
    what, args = sys.argv[2], sys.argv[3:]
    if what == "valid":
        bad = 0
        for pack in args:
            for f in pack_files(pack):
                for p in problems(schemas, f):
                    print("%s: %s" % (f, p))
                    bad += 1
        print("%d problem(s)" % bad)
        return 1 if bad else 0
    if what == "rejects":
        found = [(f, p) for f in pack_files(args[0]) for p in problems(schemas, f)]
        for f, p in found:
            print("%s: %s" % (f, p))
        return 0 if found else 1
    if what == "keys":
        with open(args[0], encoding="utf-8") as f:
            kinds = json.load(f)
        with open(os.path.join(sys.argv[1], "lesson.schema.json"), encoding="utf-8") as f:
            defs = json.load(f)["definitions"]
        bad = 0
        for kind, keys in kinds.items():
            row = defs.get(kind + "Keys", {}).get("enum")
            if row is None:
                print("kind %s: the schema has no %sKeys; add the kind to lesson.schema.json" %
                      (kind, kind))
                bad += 1
                continue
            for k in sorted(set(keys) - set(row)):
                print("kind %s: key %s is iolab's but not in %sKeys of lesson.schema.json" %
                      (kind, k, kind))
                bad += 1
            for k in sorted(set(row) - set(keys)):
                print("kind %s: key %s is in the schema but iolab does not take it" % (kind, k))
                bad += 1
        kind_enum = defs["step"]["properties"]["kind"]["enum"]
        for kind in sorted(set(kinds) - set(kind_enum)):
            print("kind %s is not in step.kind's enum of lesson.schema.json" % kind)
            bad += 1
        return 1 if bad else 0
    print("unknown request " + what)
    return 2


if __name__ == "__main__":
    sys.exit(main())
