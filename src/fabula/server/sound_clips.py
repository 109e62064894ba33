"""A storyteller's recorded clue made into what every browser plays: MP3, mono, 64 kbit/s.

Browsers record in different containers and codecs (Chromium and Firefox: WebM with Opus;
Safari: MP4 with AAC); Firefox on Linux plays AAC only with the system's codecs, but MP3 plays
in Chromium, Firefox and Safari (iOS 16 and later) alike. PyAV (FFmpeg) decodes whatever
arrives — the bytes decide, never the content type the client claims — and LAME encodes it.

`convert` runs in a worker process (`fabula.server.pictures.PictureWorker`): decoding holds a CPU
for a moment that the event loop must not give. Its duration is counted from the decoded samples
(a browser's WebM often says none in its header), and decoding stops as soon as a clip is too
long, so a small file that decodes to hours costs no more than ``most_seconds`` of audio.

>>> from fabula.server.sound_clips import convert
>>> convert(b"\\x89PNG\\r\\n\\x1a\\n not a sound", most_seconds=10.5).refused
'not_audio'
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import av
import av.error

#: What is stored: mono MP3 at 64 kbit/s — a 10 s clue is about 80 kB.
RATE = 44100
BIT_RATE = 64_000


@dataclass(frozen=True, slots=True)
class Clip:
    """A conversion's result: the MP3 bytes and the seconds they last, or why there are none
    (``refused``: ``not_audio`` or ``sound_too_long``)."""

    mp3: bytes = b""
    seconds: float = 0.0
    refused: str | None = None


def convert(data: bytes, most_seconds: float) -> Clip:
    """``data`` (any container and codec FFmpeg reads) as MP3; refused when it holds no audio that
    decodes, or more than ``most_seconds`` of it."""
    try:
        return _convert(data, most_seconds)
    except (av.error.FFmpegError, ValueError, IndexError, OSError):
        return Clip(refused="not_audio")


def _convert(data: bytes, most_seconds: float) -> Clip:
    out_buffer = io.BytesIO()
    samples = 0
    with av.open(io.BytesIO(data), "r") as source:
        if not source.streams.audio:
            return Clip(refused="not_audio")
        stream = source.streams.audio[0]
        resampler = av.AudioResampler(format="s16p", layout="mono", rate=RATE)
        with av.open(out_buffer, "w", format="mp3") as target:
            encoder = target.add_stream("libmp3lame", rate=RATE, layout="mono")
            encoder.bit_rate = BIT_RATE
            for frame in source.decode(stream):
                for mono in resampler.resample(frame):
                    samples += mono.samples
                    if samples > most_seconds * RATE:
                        return Clip(refused="sound_too_long", seconds=samples / RATE)
                    target.mux(encoder.encode(mono))
            for mono in resampler.resample(None):
                samples += mono.samples
                target.mux(encoder.encode(mono))
            if samples > most_seconds * RATE:
                return Clip(refused="sound_too_long", seconds=samples / RATE)
            if not samples:
                return Clip(refused="not_audio")
            target.mux(encoder.encode(None))
    return Clip(out_buffer.getvalue(), round(samples / RATE, 2))
