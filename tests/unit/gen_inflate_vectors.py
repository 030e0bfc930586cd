#!/usr/bin/env python3
"""Writes inflate_vectors.h for test_inflate.c: gzip and raw deflate streams
made by zlib (Python's own) from text that test_inflate.c regenerates, plus
hand-assembled invalid streams. Run: python3 gen_inflate_vectors.py > inflate_vectors.h"""
import struct
import zlib


def gen():
    # the same generator as gen_text() in test_inflate.c
    vocab = [b"require", b"module", b"export", b"function", b"return", b"const",
             b"the", b"package"]
    x, out = 12345, bytearray()
    for _ in range(1200):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        out += vocab[(x >> 16) % 8]
        out += b"\n" if (x >> 8) % 10 == 0 else b" "
    for _ in range(1500):  # bytes that need long literal codes
        x = (x * 1103515245 + 12345) & 0x7fffffff
        out.append((x >> 16) & 0xff)
    return bytes(out)


def gz(data, level):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def raw(data, level):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def bits_to_bytes(bits):
    while len(bits) % 8:
        bits.append(0)
    return bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))


def far_stream():
    """A fixed-code block whose first symbol is a match: nothing to copy."""
    bits = []

    def put(v, n):  # header fields: least significant bit first
        bits.extend((v >> i) & 1 for i in range(n))

    def code(c, n):  # Huffman codes: most significant bit first
        bits.extend((c >> i) & 1 for i in range(n - 1, -1, -1))

    put(1, 1); put(1, 2)          # final block, fixed codes
    code(0b0000001, 7)            # length 3
    code(0, 5)                    # distance 1
    code(0, 7)                    # end of block
    return bits_to_bytes(bits)


def carr(name, b):
    s = "static const unsigned char %s[%d] = {\n" % (name, len(b))
    for i in range(0, len(b), 16):
        s += "    " + ", ".join("0x%02x" % x for x in b[i:i + 16]) + ",\n"
    return s + "};\n"


t = gen()
body = raw(b"flags!\n", 6)
hdr = (bytes([0x1f, 0x8b, 8, 4 | 8 | 16 | 2]) + b"\0\0\0\0" + b"\0\3" +
       struct.pack("<H", 3) + b"xyz" + b"name.tar\0" + b"a comment\0" + b"\0\0")
flagged = hdr + body + struct.pack("<II", zlib.crc32(b"flags!\n"), 7)
print("/* inflate_vectors.h - written by gen_inflate_vectors.py; do not edit. */")
print("#define V_TEXT_LEN %d" % len(t))
print("#define V_TEXT_CRC 0x%08xu" % zlib.crc32(t))
# long: 800 KB of output, matches reaching back across the decoder's window
# (the same as long_text() in test_inflate.c)
big = b"".join(t[:4000] + b"%06d\n" % i for i in range(200))
print("#define V_LONG_LEN %d" % len(big))
print(carr("v_long", gz(big, 9)), end="")
print(carr("v_dyn", gz(t, 9)) + carr("v_stored", gz(b"abc" * 10, 0)) +
      carr("v_fixed", gz(b"hello hello hello hello\n", 6)) + carr("v_flagged", flagged) +
      carr("v_far", far_stream()) + carr("v_raw", raw(t, 9)), end="")
