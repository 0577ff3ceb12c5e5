"""The chat formats of the tiny test models: what each family's model writes, token by token.

One entry per family that llama.cpp v0.5.0 parses its own way (a specialised parser in
common/parsers/, or the differential autoparser of common/chat-auto-parser*.cpp reading the
template). make-tiny-model.py --format NAME wires a model that writes these scripts.

A script is a list of pieces, each one token: the first is the token the template's generation
prompt ends with (the state the model starts in), the last an end-of-generation token. A piece
that is not a special token of the format becomes a plain byte-level token with that exact text,
so a piece may hold several markers at once ("<|start|>assistant<|channel|>final<|message|>"):
the model wires the next token from the current one alone, and a piece that two scripts follow
differently must be told apart by its text. Where a real model writes such a marker as several
tokens, the server's parser sees the same text, only in fewer chunks.

`call` is the script of a turn with tools in the prompt and no tool result yet: it shares the
answer's pieces up to its branch (the first piece where they differ) and ends where the lazy
grammar (tool_choice auto) or the grammar (required, named) takes over: from there the model
follows its fallback preferences (`favour`, and for JSON a '"' that ends strings soon, no
whitespace, no commas) until the grammar lets the end-of-generation token through.

`tools` are texts the template writes only when tools are offered, `results` texts it writes
only around a tool result: both become user-defined tokens that one attention head looks for.

`second` (the formats whose parser takes two calls in one turn): when the prompt holds TWO_CALLS
(one user-defined token, as in "What is the weather in Paris and Berlin?"), the model does not
end the turn at the first call's last piece (`after`) but writes `piece`, a token of its own
(generation only, never in a prompt) that opens a second call in the family's syntax, then
`then` if given, and the grammar the rest; at the second call's end, the `piece` already written
tells it to end the turn. A second attention head reads both. The two tokens are added after
every other, so the model answers every other prompt exactly as without them.
"""
from __future__ import annotations

REASONING = ["Okay", ",", " let", " me", " reply", " briefly"]
ANSWER = ["Hello", "!", " I", " am", " a", " tiny", " test", " model", " for", " svir", "."]
# The prompt text that asks the formats with `second` for two calls (tests/real/recorded-cases.ts)
TWO_CALLS = "Paris and Berlin"

FORMATS: dict[str, dict] = {
    # gpt-oss: harmony channels; common/parsers/gpt-oss.cpp. <|end|> closes the analysis message
    # and is not an end of generation when <|return|> and <|call|> exist (src/llama-vocab.cpp).
    "gpt-oss": {
        "template": "openai-gpt-oss-120b.jinja",
        "control": ["<|startoftext|>", "<|endoftext|>", "<|return|>", "<|call|>", "<|end|>",
                    "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>"],
        "user": ["assistant", "namespace functions", " to=assistant"],
        "bos": "<|startoftext|>", "eos": "<|return|>", "eot": "<|call|>", "pad": "<|endoftext|>",
        "scripts": [
            ["assistant", "<|channel|>", "analysis", "<|message|>", *REASONING, "<|end|>", "<|start|>",
             "assistant<|channel|>final<|message|>", *ANSWER, "<|return|>"],
        ],
        "call": ["<|start|>", "assistant<|channel|>commentary to=functions"],
        "tools": ["namespace functions"],
        "results": [" to=assistant"],
        "favour": {"assistant<|channel|>commentary to=functions": 10.0, "<|message|>": 5.0, "<|call|>": 6.0},
        "json": True,
    },
    # Qwen3-Coder: XML calls <function=NAME><parameter=KEY>; common/parsers/qwen3-coder.cpp. The
    # template has no reasoning, and neither does the model.
    "qwen3-coder": {
        "template": "Qwen3-Coder.jinja",
        "control": ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        "user": ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<tools>"],
        "bos": "<|endoftext|>", "eos": "<|im_end|>", "pad": "<|endoftext|>",
        "scripts": [["\n", *ANSWER, "<|im_end|>"]],
        "call": ["\n", "<tool_call>", "\n<function="],
        "tools": ["<tools>"],
        "results": ["<tool_response>"],
        # a value is free text up to "\n</parameter>\n" (whatever the schema): the model writes Paris
        "wires": {">\n": "Paris", "Paris": "\n</parameter>\n", "</tool_call>": "<|im_end|>"},
        "favour": {"<tool_call>": 10.0, "\n<function=": 8.0, ">\n": 5.0, "</function>\n": 5.0,
                   "<parameter=": 4.0, "</tool_call>": 5.0, "<|im_end|>": 6.0},
        "second": {"after": "</tool_call>", "piece": "\n<tool_call>", "then": "\n<function="},
        "json": False,
    },
    # GLM-4.5 / 4.6: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>; the differential
    # autoparser. A turn ends with <|user|> (eot) or, after calls, <|observation|> (eom).
    "glm-4.6": {
        "template": "GLM-4.6.jinja",
        "control": ["<|endoftext|>", "[gMASK]", "<sop>", "<|system|>", "<|user|>", "<|assistant|>", "<|observation|>"],
        "user": ["<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>",
                 "</arg_value>", "<tool_response>", "</tool_response>", "<tools>"],
        "bos": "[gMASK]", "eos": "<|endoftext|>", "eot": "<|user|>", "eom": "<|observation|>", "pad": "<|endoftext|>",
        "scripts": [["<|assistant|>", "\n<think>", *REASONING, "</think>", "\n", *ANSWER, "<|user|>"]],
        "call": ["</think>", "\n", "<tool_call>"],
        "tools": ["<tools>"],
        "results": ["<|observation|>"],
        # a value is free text up to </arg_value> (whatever the schema): the model writes Paris
        "wires": {"<arg_value>": "Paris", "Paris": "</arg_value>", "</arg_value>": "\n", "</tool_call>": "<|observation|>"},
        "favour": {"<tool_call>": 10.0, "<arg_key>": 4.0, "</arg_key>": 5.0, "<arg_value>": 4.0,
                   "</tool_call>": 5.0, "<|observation|>": 6.0},
        "second": {"after": "</tool_call>", "piece": "\n<tool_call>"},
        # the grammar lets whitespace follow <tool_call> that the parser then refuses (docs/llamacpp-real.md)
        "compact": True,
    },
    # DeepSeek V3.1: <think> opened by the generation prompt, calls between its tool-call tokens;
    # the differential autoparser.
    "deepseek-v3.1": {
        "template": "deepseek-ai-DeepSeek-V3.1.jinja",
        "control": ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"],
        "user": ["<｜User｜>", "<｜Assistant｜>", "<think>", "</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>",
                 "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<｜tool▁output▁begin｜>",
                 "<｜tool▁output▁end｜>", "## Tools"],
        "bos": "<｜begin▁of▁sentence｜>", "eos": "<｜end▁of▁sentence｜>", "add_bos": True,
        # the template adds no generation prompt after a tool result: the answer follows at once
        "scripts": [["<think>", *REASONING, "</think>", *ANSWER, "<｜end▁of▁sentence｜>"], ["<｜tool▁output▁end｜>", "Hello"]],
        "wires": {"<｜tool▁call▁end｜>": "<｜tool▁calls▁end｜>", "<｜tool▁calls▁end｜>": "<｜end▁of▁sentence｜>"},
        "call": ["</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"],
        "tools": ["## Tools"],
        "results": ["<｜tool▁output▁begin｜>"],
        "favour": {"<｜tool▁calls▁begin｜>": 10.0, "<｜tool▁call▁begin｜>": 8.0, "<｜tool▁sep｜>": 5.0,
                   "<｜tool▁call▁end｜>": 6.0},
        # the second call's opening as a plain token with the special token's text
        "second": {"after": "<｜tool▁call▁end｜>", "piece": "<｜tool▁call▁begin｜>"},
        "json": True,
    },
    # Ministral 3 / Magistral (reasoning): [THINK]...[/THINK], [TOOL_CALLS]NAME[ARGS]{...};
    # common/parsers/ministral3.cpp. No generation prompt: the model starts after [/INST].
    "ministral-3": {
        "template": "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        "control": ["<s>", "</s>", "[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[AVAILABLE_TOOLS]",
                    "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[ARGS]", "[THINK]",
                    "[/THINK]", "[IMG]"],
        "user": [],
        "bos": "<s>", "eos": "</s>", "add_bos": True,
        # after a tool result the model starts at once (no [INST] between); a call ends after its
        # arguments' last brace
        "scripts": [["[/INST]", "[THINK]", *REASONING, "[/THINK]", *ANSWER, "</s>"], ["[/TOOL_RESULTS]", "[THINK]"]],
        "wires": {"}": "</s>"},
        "call": ["[/THINK]", "[TOOL_CALLS]"],
        "tools": ["[AVAILABLE_TOOLS]"],
        "results": ["[TOOL_RESULTS]"],
        "favour": {"[TOOL_CALLS]": 10.0, "[ARGS]": 5.0, "</s>": 6.0},
        # the second call opens with the control token's text in two plain tokens (a token's text
        # is its own: a plain "[TOOL_CALLS]" would clash with the control token)
        "second": {"after": "}", "piece": "[TOOL_CALLS", "then": "]"},
        "json": True,
    },
    # Llama 3.x: JSON calls {"name": ..., "parameters": ...} in the answer; the differential
    # autoparser. No reasoning.
    "llama-3.3": {
        "template": "meta-llama-Llama-3.3-70B-Instruct.jinja",
        "control": ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                    "<|eom_id|>", "<|python_tag|>"],
        # "Environment: ipython" is in every system prompt with tools: a result is the ipython role's
        # header. The model writes its call whole and knows one name: offered other tools, it
        # calls get_weather all the same, and the parser fails the stream (docs/llamacpp-real.md)
        "user": ["ipython<|end_header_id|>", "Given the following functions"],
        "bos": "<|begin_of_text|>", "eos": "<|eot_id|>", "eom": "<|eom_id|>", "pad": "<|end_of_text|>", "add_bos": True,
        "scripts": [["\n\n", *ANSWER, "<|eot_id|>"]],
        # tool_choice auto gets no grammar from this parser: the model writes its call whole, of the
        # suite's get_weather (a model this small knows no other names)
        "call": ["\n\n", "{\"name\": \"", "get_weather", "\", \"parameters\": {\"city\": \"Paris\", \"unit\": \"c\"}}",
                 "<|eot_id|>"],
        "tools": ["Given the following functions"],
        "results": ["ipython<|end_header_id|>"],
        "favour": {"{\"name\": \"": 10.0, "<|eot_id|>": 6.0},
        "json": True,
    },
}
