"""LLM adapters behind core.ports.Llm.

This package's __init__ does not import the Anthropic adapter, so the core can use the budget
scope without loading the SDK; the composition root imports
`core.llm.anthropic_llm.AnthropicLlm` only when an API key is configured.
"""

from core.llm.budget import CallBudget, budget_scope, current_budget_key

__all__ = ["CallBudget", "budget_scope", "current_budget_key"]
