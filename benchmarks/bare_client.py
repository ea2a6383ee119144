"""The run rows' peer: a bare aiohttp client, what any script would do to ask a search service every
question of a golden set. The same requests as ``ragauge run`` (``POST {"query", "k": 20}``, one
session, at most ``concurrency`` in flight), answers written as JSONL lines; nothing else: no
retries, timeouts, checks, resume, progress or ``_meta``. Against the same loopback server in the
same run, it is the floor that the server and the machine leave (speed_table.py).

    python benchmarks/bare_client.py URL GOLDEN.jsonl CONCURRENCY OUT.jsonl
"""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import orjson


async def main(url: str, golden: str, concurrency: int, out: str) -> None:
    with open(golden, "rb") as fh:
        questions = [orjson.loads(line) for line in fh if line.strip()]
    todo = iter(questions)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256)) as session:
        with open(out, "wb") as sink:
            async def worker() -> None:
                for q in todo:  # shared: each worker takes the next question when its call is done
                    body = orjson.dumps({"query": q["query"], "k": 20})
                    async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as resp:
                        hits = orjson.loads(await resp.read())["hits"]
                    sink.write(orjson.dumps({"id": q["id"], "hits": hits}) + b"\n")

            await asyncio.gather(*(worker() for _ in range(concurrency)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
