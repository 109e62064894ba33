"""Recordings for the tests, made with PyAV itself as browsers send them: a sine in WebM/Opus
(Chromium, Firefox) or in MP4/AAC (Safari). No binary fixtures."""

from __future__ import annotations

import io
import math

import av
import numpy as np

#: what each browser family sends: (container, codec)
FORMATS = {"webm": ("webm", "libopus"), "mp4": ("mp4", "aac")}


def recording(kind: str, seconds: float, rate: int = 48000, pitch: float = 440.0) -> bytes:
    """``seconds`` of a quiet sine at ``pitch`` Hz, mono, as a browser of ``kind`` records it."""
    container, codec = FORMATS[kind]
    out = io.BytesIO()
    with av.open(out, "w", format=container) as target:
        stream = target.add_stream(codec, rate=rate, layout="mono")
        assert isinstance(stream, av.AudioStream)
        total = int(seconds * rate)
        samples = (0.3 * np.sin(2 * math.pi * pitch * np.arange(total) / rate)).astype(np.float32)
        for start in range(0, total, 960):  # 20 ms at 48 kHz: one Opus frame
            frame = av.AudioFrame.from_ndarray(samples[start : start + 960].reshape(1, -1), format="flt", layout="mono")
            frame.sample_rate, frame.pts = rate, start
            for packet in stream.encode(frame):
                target.mux(packet)
        for packet in stream.encode(None):
            target.mux(packet)
    return out.getvalue()


def seconds_of(mp3: bytes) -> float:
    """How long an MP3 lasts, decoded (the route's answer must be real audio)."""
    with av.open(io.BytesIO(mp3), "r") as source:
        assert source.streams.audio[0].codec_context.name.startswith("mp3")
        return float(sum(frame.samples / frame.sample_rate for frame in source.decode(audio=0)))
