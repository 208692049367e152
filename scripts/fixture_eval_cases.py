#!/usr/bin/env python3
"""Turns the parser fixtures into a `toolscope eval` corpus, to measure auto-detect on them.

Each fixture's golden was written with its format named and reviewed by hand; the case here
gives no format, so `toolscope eval` scores whether auto-detect finds the same calls. Values of
text formats (untyped in the golden) are read the way `toolscope eval` reads them without a
schema: a value that is a JSON literal becomes that literal.

    python3 scripts/fixture_eval_cases.py > /tmp/cases.jsonl
    toolscope eval /tmp/cases.jsonl --formats-dir examples/formats
"""
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "parser")


def read_literal(value):
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value.strip())
    except ValueError:
        return value


def expected_calls(golden):
    calls = []
    for request in golden["requests"]:
        args = request["args"]
        if request.get("untyped_args"):
            args = {key: read_literal(value) for key, value in args.items()}
        calls.append({"name": request["tool_name"], "arguments": args})
    return calls


def main():
    for family in sorted(os.listdir(ROOT)):
        for reply_path in sorted(glob.glob(os.path.join(ROOT, family, "*.txt"))):
            with open(reply_path[:-4] + ".json", encoding="utf-8") as file:
                golden = json.load(file)
            with open(reply_path, encoding="utf-8") as file:
                reply = file.read()
            case = {
                "id": f"{family}/{os.path.basename(reply_path)[:-4]}",
                "reply": reply,
                "expected": expected_calls(golden),
            }
            sys.stdout.write(json.dumps(case, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
