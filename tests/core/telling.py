"""What the answer tests tell a chat: the dependency chain and policy of the quick start, in
three languages; a chat's messages told on one day, or one a minute by a staff member."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.service import Core

CHAINS = {
    "en": ["checkout depends on payments", "payments depends on antifraud"],
    "pt": ["checkout depende de pagamentos", "pagamentos depende do antifraude"],
    "ru": ["чекаут зависит от платежей", "платежи зависят от антифрода"],
}
POLICY = {
    "en": "antifraud requires encryption at rest",
    "pt": "antifraude exige criptografia em repouso",
    "ru": "антифрод требует шифрование данных",
}

# a team chat's messages in three languages (and one off-topic)
TEAM_IN_THREE_LANGUAGES = (
    "Доставка в Москву не осуществляется, только по Португалии и Испании.",
    "Склад в Порту работает с 8 до 18, по субботам до 13.",
    "Returns are accepted within 30 days, the client pays return shipping.",
    "O Carlos é o gerente de contas dos clientes corporativos.",
    "the office coffee machine is broken again, it leaks water",
)


async def tell(core: Core, chat: str, *texts: str) -> None:
    for text in texts:
        await core.remember(chat, author="Ana", text=text, ts=datetime(2026, 11, 2, tzinfo=UTC))


async def tell_by_minute(core: Core, texts: list[str], chat: str = "c") -> None:
    day = datetime(2026, 9, 1, 9, tzinfo=UTC)
    for i, text in enumerate(texts):
        await core.remember(chat, author="Marta", text=text, ts=day + timedelta(minutes=i))


async def answer_after(core: Core, texts: list[str], question: str) -> str:
    """The answer to the question in a chat told the texts."""
    await tell_by_minute(core, texts)
    return (await core.ask("c", question)).answer
