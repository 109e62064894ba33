"""Research tools around the game: agents that are language models, and data for studying play."""
