"""Card understanding for the AI players: a sentence-embedding model run in numpy, card vectors,
a memory of finished rounds, and the guesser every bot builds on (a storyteller asks it how others
will read a clue, a decoy which hand card draws votes, a voter which table card is the one).

- `encoder`: all-MiniLM-L6-v2, loaded once per process (`shared_encoder()`);
- `cards`: each card's texts as vectors (cached) and the clue-to-card similarity features;
- `associations`: hand-written associations for the original deck's motifs;
- `memory`: `ClueMemory`, clue → card pairs from finished rounds;
- `guesser`: `Guesser.guess(clue, cards)` → probabilities and predicted vote shares;
- `evaluation`, `tuning`: `fabula ai eval` and the fitting of the guesser's weights.
"""

from .guesser import Guess, Guesser, Weights
from .memory import ClueMemory, PastRound

__all__ = ["ClueMemory", "Guess", "Guesser", "PastRound", "Weights"]
