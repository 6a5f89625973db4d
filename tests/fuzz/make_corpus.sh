#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into OUT/lesson and OUT/progress (default
# build-fuzz/corpus): every lesson of the built-in pack alone (loaded with a pack.json that lists
# it as "a"), and every pack of tests/data/packs (good and damaged) as pack.json, the separator
# line, then its first lesson renamed "a"; progress files, good and damaged, for the store.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build-fuzz/corpus}
mkdir -p "$out/lesson" "$out/progress"
sep=$'\n#####\n'
n=0
for f in "$root"/lessons/*.json; do
    [ "$(basename "$f")" = pack.json ] && continue
    # The lesson's own id must be "a" to match the pack that the target supplies.
    sed '0,/"id": *"[^"]*"/s//"id": "a"/' "$f" >"$out/lesson/builtin-$(basename "$f")"
    n=$((n + 1))
done
for dir in "$root"/tests/data/packs/good "$root"/tests/data/packs/bad/*; do
    [ -f "$dir/pack.json" ] || continue
    first=$(sed -n 's/.*"lessons": *\["\([a-z0-9_-]*\)".*/\1/p' "$dir/pack.json" | head -1)
    name="pack-$(basename "$dir")"
    {
        sed "s/\"lessons\": *\[\"$first\"/\"lessons\": [\"a\"/" "$dir/pack.json"
        printf '%s' "$sep"
        [ -n "$first" ] && [ -f "$dir/$first.json" ] &&
            sed "0,/\"id\": *\"$first\"/s//\"id\": \"a\"/" "$dir/$first.json"
    } >"$out/lesson/$name" || true
    n=$((n + 1))
done
cat >"$out/progress/good" <<'JSON'
{"format": 1, "packs": {"core": {"done": ["echo/epoll", "echo/fork", "files/sendfile"],
 "answers": {"echo/quiz": "b"}, "last": {"lesson": "files", "step": "sendfile"}},
 "other": {"done": []}}}
JSON
cat >"$out/progress/records" <<'JSON'
{"format": 1, "packs": {"core": {"done": ["echo/quiz"],
 "steps": {"echo/quiz": {"updated": 1764040000, "done_at": 1764030000,
  "fields": {"quiz": {"tries": 2, "answers": [[0, 2], [1]]}, "predict": {"guess": 7.5}}}}}}}
JSON
printf '%s' '{"format": 1, "packs": {}}' >"$out/progress/empty"
printf '%s' '{"format": 1, "packs": {"core": {"done": ["a/x"]}, "core": {"done": ["b/y"]}}}' \
    >"$out/progress/dup-pack"
printf '%s' '{"format": 1, "packs": {"core": {"done": ["a/x\u0000y"]}}}' >"$out/progress/nul"
printf '%s' '{"format": 1, "packs": {"core": {"done": ["a/x"], "answers": {"a/q": 7}}}}' \
    >"$out/progress/wrong-type"
echo "make_corpus.sh: $n lesson seeds, $(ls "$out/progress" | wc -l) progress seeds in $out"
