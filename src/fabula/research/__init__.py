"""Fabula for researchers: the engine in the standard multi-agent frameworks, agents that are
language models, and data for studying play (docs/research.md).

The environments need the optional extra ``fabula[research]`` (PettingZoo, Gymnasium, OpenSpiel);
nothing outside their modules imports those, so a plain ``pip install fabula`` works without them.

- `fabula.research.actions` — the one action space both frameworks share (no framework needed);
- `fabula.research.observations` — what a seat observes: its view as JSON, card texts, the mask;
- `fabula.research.spaces` — those as Gymnasium spaces;
- `fabula.research.pettingzoo` — ``env(...)`` (AEC) and ``parallel_env(...)``;
- `fabula.research.state` — their global ``state()``: every seat's observation together;
- `fabula.research.opponents` — bots, agents and policies the envs play at the seats of ``opponents=``;
- `fabula.research.openspiel` — the OpenSpiel game ``python_fabula_dixit`` (registered on import);
- `fabula.research.agents` — language-model agents (prompt, reply parser, retries, fallback,
  transcript, an OpenAI-compatible client, a stand-in endpoint);
- `fabula.research.export` — arena logs and finished games as evaluation rounds (`fabula ai export`);
- `fabula.research.trajectories` — every move of an arena game as the env shows it: observation,
  legal ids, action, reward (`fabula arena --trajectories`).
"""
