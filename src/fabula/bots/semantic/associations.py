"""What the original deck's pictures evoke, beyond what they literally show.

A literal description ("an old key floats in the air on a string") meets a literal clue, but Dixit
clues are mostly not literal: themes, feelings, sayings, stories. These phrases were written by hand
for Fabula's own deck, one entry per motif of the generator (each subject, twist, place and light —
see `fabula.cards.art`), so they stay right whatever seed draws the deck: a card's associations are
those of the motifs among its tags. They are used only for cards of the original deck (ids
``fabula-…``): an imported deck brings its own captions, and evaluation decks their own descriptions.
"""

from __future__ import annotations

from fabula.cards.model import Card

#: Card ids of the original deck start with this.
ORIGINAL_PREFIX = "fabula-"

#: motif tag → phrases it evokes.
ASSOCIATIONS: dict[str, tuple[str, ...]] = {
    # subjects
    "lighthouse": ("a guiding light", "hope in the storm", "keeping watch", "a safe harbour", "the lonely keeper"),
    "house": ("home sweet home", "where the heart is", "family", "belonging", "a safe place", "homesick"),
    "tower": ("an ivory tower", "locked away", "Rapunzel", "isolation", "standing tall", "the castle keep"),
    "tree": ("the tree of life", "family tree", "putting down roots", "patience of nature", "seasons"),
    "mushroom": ("a fairy ring", "Alice in Wonderland", "magic", "poison or feast", "hidden in the woods"),
    "door": ("a new beginning", "opportunity knocks", "the unknown", "a way out", "closed doors", "crossroads"),
    "teacup": ("a storm in a teacup", "tea time", "cosiness", "a mad tea party", "British manners", "calm"),
    "key": ("the key to my heart", "the answer", "locked secrets", "solution", "keys to the kingdom"),
    "clock": ("time flies", "running late", "a deadline", "the hour has come", "ticking away", "too late"),
    "lantern": ("a light in the dark", "guidance", "searching", "a little hope", "the night watch"),
    "balloon": ("adventure", "around the world in eighty days", "drifting away", "the great voyage"),
    "stairs": ("step by step", "climbing the ladder", "stairway to heaven", "progress", "ambition", "effort"),
    "book": ("once upon a time", "a story", "knowledge", "reading", "lost in a book", "imagination"),
    "person": ("loneliness", "the traveller", "a stranger", "searching for oneself", "solitude", "wanderlust"),
    "whale": ("Moby Dick", "Jonah", "the deep", "song of the sea", "gentle giant", "something enormous"),
    "goldfish": ("a three-second memory", "trapped in a bowl", "a pet", "small world", "looking out"),
    "crane": ("a thousand paper cranes", "elegance", "a wish", "peace", "origami", "migration"),
    "boat": ("setting sail", "the open sea", "adrift", "exploration", "a long voyage", "shipwreck"),
    "star": ("wish upon a star", "a shooting star", "destiny", "dreams", "reach for the stars", "fame"),
    "umbrella": ("Mary Poppins", "protection", "a rainy day", "singing in the rain", "cover"),
    "chair": ("waiting for someone", "an empty seat", "missing someone", "loss", "the one who left"),
    "birdcage": ("freedom", "prison", "captivity", "flying free", "breaking free", "a gilded cage"),
    "bottle": ("a message in a bottle", "a castaway", "far away", "a letter", "call for help", "lost at sea"),
    "hourglass": ("time running out", "the sands of time", "patience", "countdown", "mortality"),
    "candle": ("a vigil", "remembrance", "hope", "burning the candle at both ends", "a birthday", "prayer"),
    "bicycle": ("childhood", "learning to ride", "balance", "freedom of the road", "summer holidays"),
    "kite": ("playfulness", "childhood", "go fly a kite", "carefree", "letting go", "a windy day"),
    "owl": ("wisdom", "the night watchman", "knowledge", "a wise old owl", "night owl", "insomnia"),
    "fox": ("sly as a fox", "trickery", "a cunning plan", "The Little Prince", "the fox and the grapes"),
    "rabbit": ("shyness", "down the rabbit hole", "the white rabbit", "running late", "fear", "innocence"),
    "snail": ("slow and steady", "carrying home", "at a snail's pace", "patience", "taking your time"),
    "elephant": ("the elephant in the room", "never forgets", "memory", "strength", "heavy burden"),
    "jellyfish": ("drifting", "transparency", "go with the flow", "sting", "floating without purpose"),
    "seashell": ("the sound of the sea", "memories of the beach", "holidays", "treasure", "the shore"),
    "feather": ("light as a feather", "weightless", "a quill", "softness", "a tickle", "flying"),
    "crown": ("king for a day", "power", "royalty", "heavy is the head", "ambition", "the throne"),
    "windmill": ("tilting at windmills", "Don Quixote", "the countryside", "turning", "Holland", "wind"),
    "bathtub": ("relaxation", "eureka", "a bubble bath", "a peaceful moment", "bath time", "calm"),
    "piano": ("music", "a melody", "a concert", "playing by ear", "harmony", "a song"),
    # twists
    "giant": ("feeling small", "David and Goliath", "a giant problem", "overwhelmed", "awe", "larger than life"),
    "floating": ("lightness", "holding on", "letting go", "a dream", "weightless", "on a string"),
    "upside down": ("a world upside down", "topsy-turvy", "a new perspective", "confusion", "chaos"),
    "bubble": ("living in a bubble", "fragile", "protected", "a snow globe", "isolation", "keeping safe"),
    "reflection": ("mirror mirror", "the other side", "appearances deceive", "who am I", "a double life"),
    "miniature": ("a small world", "a world within", "a dream inside", "imagination", "a little kingdom"),
    "rain": ("it's raining cats and dogs", "a shower of gifts", "too much", "abundance", "bad weather"),
    "swimming": ("a fish out of water", "impossible", "a dream", "out of place", "swimming in the sky"),
    "glow": ("a light in the darkness", "hope", "warmth", "inner light", "the only light", "comfort"),
    "roots": ("putting down roots", "growing up", "transformation", "rebirth", "nature takes over"),
    "balloons": ("escape", "a party", "flying away", "up and away", "celebration", "freedom"),
    "moon": ("the moon", "a new moon", "the night sky", "dreams", "something missing", "replacement"),
    "shadow": ("the shadow self", "a hidden side", "secret identity", "who you really are", "the inner self"),
    "carrying": ("a heavy burden", "carrying the weight", "moving house", "a journey", "responsibility"),
    # places and lights
    "mountains": ("the summit", "a mountain to climb", "adventure", "the high peaks", "fresh air"),
    "valley": ("the valley", "peace", "a sheltered place", "morning quiet"),
    "sea": ("the open sea", "the horizon", "far away", "the deep blue", "the voyage"),
    "lake": ("still waters run deep", "calm", "a quiet lake", "silence", "serenity"),
    "forest": ("lost in the woods", "fairy tale forest", "mystery", "the dark forest"),
    "desert": ("a desert island", "thirst", "emptiness", "a mirage", "the middle of nowhere", "loneliness"),
    "snow": ("winter's tale", "cold", "silence", "Christmas", "frozen", "the first snow"),
    "town": ("the sleeping town", "neighbourhood", "everyone is asleep", "quiet streets"),
    "room": ("an empty room", "indoors", "waiting", "loneliness", "a quiet room"),
    "clouds": ("head in the clouds", "above it all", "heaven", "daydreaming", "on cloud nine"),
    "hills": ("rolling hills", "the countryside", "a lazy afternoon", "summer"),
    "underwater": ("the deep", "under the sea", "drowning", "the abyss", "a hidden world"),
    "dawn": ("a new day", "a fresh start", "sunrise", "awakening", "the early bird"),
    "dusk": ("the end of the day", "twilight", "sunset", "nostalgia", "farewell"),
    "night": ("the night", "dreams", "sleep", "darkness", "mystery"),
    "storm": ("a storm is coming", "danger", "trouble", "fear", "chaos"),
    "aurora": ("the northern lights", "magic", "wonder", "the far north"),
    "mist": ("the fog", "uncertainty", "mystery", "a blurred memory", "lost"),
    "spring": ("springtime", "renewal", "new life", "blossoming", "fresh start"),
    "winter": ("winter", "cold", "hibernation", "the long winter"),
    "golden": ("the golden hour", "warm afternoon", "nostalgia", "peaceful"),
    "moonlit": ("moonlight", "a romantic night", "silver light", "night walk"),
}


def associations(card: Card) -> tuple[str, ...]:
    """The phrases ``card`` evokes: those of the motifs among its tags (original deck only)."""
    if not card.id.startswith(ORIGINAL_PREFIX):
        return ()
    phrases: dict[str, None] = {}
    for tag in card.tags:
        for phrase in ASSOCIATIONS.get(tag, ()):
            phrases[phrase] = None
    return tuple(phrases)
