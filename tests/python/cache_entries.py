"""Reading and forging persistent-cache entries (src/cache/entry_format.h), for tests that damage
or swap them."""
import json
import os

import xxhash

MAGIC = b"TRITON_JIT_ENTRY 2 "


def read(path):
    """(kind, header dict, payload bytes) of an entry file."""
    with open(path, "rb") as f:
        data = f.read()
    first, checksum, rest = data.split(b"\n", 2)
    assert first.startswith(MAGIC)
    header, payload = rest.split(b"\n", 1)
    assert xxhash.xxh3_128_hexdigest(rest).encode() == checksum
    return first[len(MAGIC):].decode(), json.loads(header), payload


def frame(kind, header_bytes, payload):
    """An entry with a valid checksum around whatever header bytes are given."""
    body = header_bytes + b"\n" + payload
    return MAGIC + kind.encode() + b"\n" + xxhash.xxh3_128_hexdigest(body).encode() + b"\n" + body


def write(path, kind, header, payload):
    with open(path, "wb") as f:
        f.write(frame(kind, json.dumps(header).encode(), payload))


def files(cache, suffix):
    return sorted(os.path.join(d, f) for d, _, names in os.walk(cache) for f in names if f.endswith(suffix))
