# A PTC program in Python: `ptc exec examples/python/word-count.py` (the .py extension picks the
# Python runtime). It is the body of an async function: top-level await and return work, `tools`
# and `ToolCallError` are globals. It lists the example presets, reads them in parallel and returns
# the word count of each; only the returned value and the printed lines come back.
import asyncio

found = await tools.glob({"pattern": "presets/*.yml"})
files = found["files"][:5]
reads = await asyncio.gather(*(tools.read({"path": path}) for path in files))
counts = {path: len(read["content"].split()) for path, read in zip(files, reads)}
print("read", len(files), "preset files")

try:
    await tools.read({"path": "no-such-file.txt"})
except ToolCallError as error:
    print("as expected:", error.tool_name, error.code)

return counts
