"""Players that are language models: one agent for the arena and the live table.

One move is: `what_is_asked` reads the seat's view and legal moves; `prompt_messages` writes
them as chat messages (the mode's rules in the table's language, the clue, the cards as their
descriptions — or as small pictures for a model that sees —, the scores, the question); a
`ChatClient` (`OpenAIChat`: any OpenAI-compatible ``/chat/completions`` endpoint) answers;
`parse_reply` maps the words to one legal move; `LLMAgent` ties it together with retries, a
fallback and a transcript. `fabula arena --agent openai:…` seats it (`fabula.research.agents`);
a server's model bots (`fabula serve --model-bot`, `models`) seat it at a live table.
"""

from .agent import Decision, EndpointFailed, LLMAgent, Transcript
from .asks import Ask, Choice, what_is_asked
from .client import ChatClient, ChatError, OpenAIChat
from .models import ModelBot, ModelBotError, model_bots, parse_model_bot, parse_openai_spec
from .parse import ReplyError, parse_reply
from .prompt import prompt_messages

__all__ = [
    "Ask",
    "ChatClient",
    "ChatError",
    "Choice",
    "Decision",
    "EndpointFailed",
    "LLMAgent",
    "ModelBot",
    "ModelBotError",
    "OpenAIChat",
    "ReplyError",
    "Transcript",
    "model_bots",
    "parse_model_bot",
    "parse_openai_spec",
    "parse_reply",
    "prompt_messages",
    "what_is_asked",
]
