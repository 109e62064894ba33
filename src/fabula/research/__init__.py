"""Research environments: Fabula's engine for reinforcement-learning and game-theory frameworks.

Installed with the optional extra ``fabula[research]`` (PettingZoo, Gymnasium, OpenSpiel); nothing
outside this package imports them, so a plain ``pip install fabula`` works without them.

- `fabula.research.actions` — the one action space both frameworks share (no framework needed);
- `fabula.research.observations` — what a seat observes: its view as JSON, card texts, the mask;
- `fabula.research.spaces` — those as Gymnasium spaces;
- `fabula.research.pettingzoo` — ``env(...)`` (AEC) and ``parallel_env(...)``;
- `fabula.research.openspiel` — the OpenSpiel game ``python_fabula_dixit`` (registered on import).

See docs/research-envs.md.
"""
