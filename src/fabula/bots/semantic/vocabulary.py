"""The words and phrases a bot storyteller may give as a clue, besides what the deck itself evokes.

Dixit clues are rarely literal: a feeling, an idea, a saying, a story everybody knows. The
storyteller scores each of these (and each phrase its deck's cards evoke) against its hand and keeps
the clue it expects some, but not all, players to connect with its card. The easy persona draws
from `SIMPLE` only. The phrases are English; `vocabulary_zh.CHINESE` gives each in traditional and
simplified Chinese, for bots that clue in Chinese (`LANGUAGES`).
"""

from __future__ import annotations

from fabula.bots.base import BOT_LANGUAGES

#: Plain single words: what a beginner says.
SIMPLE: tuple[str, ...] = (
    "Home", "Journey", "Memory", "Silence", "Freedom", "Waiting", "Secret", "Dream", "Balance", "Courage",
    "Hope", "Night", "Escape", "Together", "Lost", "Time", "Music", "Water", "Sky", "Light", "Darkness",
    "Cold", "Warmth", "Childhood", "Magic", "Danger", "Peace", "Wind", "Sleep", "Game", "Travel",
    "Mystery", "Nature", "Adventure", "Family", "Fear", "Joy", "Sadness", "Love", "Friendship",
)  # fmt: skip

#: Feelings, ideas, sayings and story echoes: what a seasoned player says.
EVOCATIVE: tuple[str, ...] = (
    # feelings and states
    "Loneliness", "Nostalgia", "Curiosity", "Wonder", "Patience", "Longing", "Melancholy", "Serenity",
    "Anticipation", "Regret", "Awe", "Relief", "Boredom", "Pride", "Jealousy", "Homesickness",
    "Daydreaming", "Insomnia", "Stage fright", "Butterflies in the stomach", "Vertigo", "Déjà vu",
    "Wanderlust", "Solitude", "Tenderness", "Innocence", "Stubbornness", "Hesitation", "Bliss",
    # ideas
    "Infinity", "Gravity", "Eternity", "Fragility", "Transformation", "Rebirth", "Imagination",
    "Perspective", "Contrast", "Illusion", "Harmony", "Chaos", "Destiny", "Coincidence", "Sacrifice",
    "Ambition", "Temptation", "Protection", "Abundance", "Emptiness", "Distance", "Belonging",
    "Forgotten", "Hidden", "Out of place", "Upside down", "Too big", "Too small", "Almost", "Beyond",
    "In between", "The end", "The beginning", "Everything changes", "Nothing lasts", "The other side",
    "Still life", "Slow motion", "Weightless", "Deep down", "Far from home", "Just in time",
    "The last one", "First time", "Second chance", "Point of no return", "The calm before the storm",
    "Against the current", "Off the map", "Under the surface", "Behind closed doors", "Out of reach",
    "Hanging by a thread", "On the edge", "Between two worlds", "A matter of scale", "Hide and seek",
    # sayings and expressions
    "Once in a blue moon", "Head in the clouds", "Fish out of water", "Needle in a haystack",
    "Castles in the air", "Home is where the heart is", "Time flies", "Still waters run deep",
    "Light at the end of the tunnel", "Every cloud has a silver lining", "Slow and steady",
    "Curiosity killed the cat", "The early bird", "Out of the blue", "Over the moon", "On cloud nine",
    "A drop in the ocean", "The tip of the iceberg", "Walking on air", "Lost in thought",
    "The elephant in the room", "Storm in a teacup", "Breaking the ice", "Burning bridges",
    "Make a wish", "Wish you were here", "Sweet dreams", "Bon voyage", "Home alone", "Good night",
    "Keep calm", "Don't look down", "Follow me", "Hold on", "Let it go", "Wake up", "Look closer",
    "Almost there", "Not again", "Too late", "Happy birthday", "Welcome home", "Goodbye",
    # story echoes (old tales and myths, nobody's copyright)
    "Once upon a time", "Happily ever after", "Alice", "Icarus", "Noah's ark", "The tortoise and the hare",
    "Sleeping Beauty", "Little Red Riding Hood", "Jack and the beanstalk", "Pandora's box",
    "Gulliver", "Robinson Crusoe", "Pinocchio", "The Snow Queen", "The Little Mermaid", "Odyssey",
    "Atlantis", "Babel", "Sisyphus", "The Pied Piper", "Hansel and Gretel", "Cinderella's midnight",
    "The ugly duckling", "Thumbelina", "The princess and the pea", "Peter Pan", "Treasure island",
    "Twenty thousand leagues", "Around the world", "Journey to the centre of the earth",
    # sensations and moments
    "Sunday morning", "The first snow", "Rainy afternoon", "Summer holidays", "The last train",
    "Midnight", "Dawn", "Twilight", "High tide", "Lullaby", "Echo", "Whisper", "Heartbeat",
    "Hibernation", "Migration", "Harvest", "Blossom", "Shipwreck", "Lighthouse keeper", "Sleepwalker",
    "Stargazing", "Treasure", "Souvenir", "Postcard", "Snow globe", "Music box", "Paper boat",
    "Lullaby of the sea", "A long way down", "Higher and higher", "Deeper and deeper",
)  # fmt: skip


#: The languages a bot can give its clues in (those of the web client).
LANGUAGES = BOT_LANGUAGES


def clue_pool(*, simple_only: bool = False, language: str = "en") -> tuple[str, ...]:
    """The general clue phrases (the simple ones first), without duplicates, in ``language``.

    >>> clue_pool(language="zh-Hant")[:3], clue_pool(language="zh-Hans")[:3]
    (('家', '旅程', '回憶'), ('家', '旅程', '回忆'))
    """
    english = SIMPLE if simple_only else tuple(dict.fromkeys((*SIMPLE, *EVOCATIVE)))
    if language == "en":
        return english
    if language not in LANGUAGES:
        raise ValueError(f"no clues in {language!r}; the languages are {', '.join(LANGUAGES)}")
    from .vocabulary_zh import CHINESE

    script = 0 if language == "zh-Hant" else 1
    return tuple(CHINESE[phrase][script] for phrase in english)


def mystery_clue(number: int, language: str = "en") -> str:
    """A clue that says nothing, for a storyteller left without one (numbered, to stay distinct)."""
    return {"zh-Hant": f"謎題 {number}", "zh-Hans": f"谜题 {number}"}.get(language, f"Mystery {number}")
