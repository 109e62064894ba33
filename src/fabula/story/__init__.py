"""What a game leaves behind: its album (every round as it was revealed), the score chart, and
the album drawn as one picture to share.

>>> from fabula.story import Album
>>> Album(number=1, mode="odyssey", options={}, players=[], teams=None, started_at=0.0).finished
False
"""

from .album import Album, AlbumAudience, CrowdLeader, CrowdRound, GameSummary, Player, TakeOver

__all__ = ["Album", "AlbumAudience", "CrowdLeader", "CrowdRound", "GameSummary", "Player", "TakeOver"]
