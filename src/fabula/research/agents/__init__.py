"""Players that are language models, seated like any bot (`fabula.bots.base.Bot`).

One move is: `what_is_asked` reads the seat's view and legal moves; `prompt_messages` writes
them as chat messages (rules summary, clue, cards as their descriptions, scores, the question);
a `ChatClient` (`OpenAIChat`: any OpenAI-compatible ``/chat/completions`` endpoint) answers;
`parse_reply` maps the words to one legal move; `LLMAgent` ties it together with retries, a
fallback and a transcript. `agent_from_spec` turns ``openai:URL:MODEL`` or ``module:Class`` into
seats for `fabula arena --agent`.
"""

from .agent import EndpointFailed, LLMAgent, Transcript
from .asks import Ask, Choice, what_is_asked
from .client import ChatClient, ChatError, OpenAIChat
from .parse import ReplyError, parse_reply
from .prompt import prompt_messages
from .specs import AgentSpecError, agent_from_spec, parse_openai_spec

__all__ = [
    "AgentSpecError",
    "Ask",
    "ChatClient",
    "ChatError",
    "Choice",
    "EndpointFailed",
    "LLMAgent",
    "OpenAIChat",
    "ReplyError",
    "Transcript",
    "agent_from_spec",
    "parse_openai_spec",
    "parse_reply",
    "prompt_messages",
    "what_is_asked",
]
