"""Players that are language models, seated in `fabula arena` like any bot.

The agent itself — `what_is_asked`, `prompt_messages`, `parse_reply`, the `OpenAIChat` client and
`LLMAgent` with its retries, fallback and transcript — is `fabula.bots.language`, the same code a
server's model bots play with at a live table; it is re-exported here. This package adds what
only research needs: `agent_from_spec`, which turns ``openai:URL:MODEL`` or ``module:Class`` into
seats for `fabula arena --agent` (`specs`), and a stand-in endpoint (`standin`).
"""

from fabula.bots.language import (
    Ask,
    ChatClient,
    ChatError,
    Choice,
    EndpointFailed,
    LLMAgent,
    OpenAIChat,
    ReplyError,
    Transcript,
    parse_openai_spec,
    parse_reply,
    prompt_messages,
    what_is_asked,
)

from .specs import AgentSpecError, agent_from_spec

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
