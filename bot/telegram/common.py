"""Small helpers shared by the handlers: chat keys, who is speaking, addressing, sending."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from aiogram import Bot
from aiogram.enums import ChatAction, ChatMemberStatus, ChatType
from aiogram.types import Message, User

from bot.telegram.formatting import escape, split_message
from bot.telegram.ratelimit import QuestionLimiter
from bot.texts import language_of, t

log = logging.getLogger(__name__)

GROUP_TYPES = frozenset({ChatType.GROUP, ChatType.SUPERGROUP})
ADMIN_STATUSES = frozenset({ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR})
TYPING_INTERVAL_S = 4.5  # Telegram shows an action for about 5 s


def chat_key(chat_id: int) -> str:
    # One core chat per Telegram chat: forum topics share their group's memory (issue 6, "forum
    # topics count as their chat"); replies still go to the topic via message_thread_id.
    return f"telegram:{chat_id}"


def is_group(message: Message) -> bool:
    return message.chat.type in GROUP_TYPES


def author_of(message: Message) -> str:
    if message.from_user is not None and not _is_anonymous_admin(message):
        return message.from_user.full_name
    if message.sender_chat is not None:  # anonymous admins and channel posts speak as a chat
        return message.sender_chat.title or str(message.sender_chat.id)
    return "unknown"


def _is_anonymous_admin(message: Message) -> bool:
    return message.sender_chat is not None and message.sender_chat.id == message.chat.id


def lang_of(user: User | None) -> str:
    return language_of(user.language_code if user else None)


def replied(message: Message) -> Message | None:
    """The message this one replies to. In a forum topic every message "replies" to the
    topic's first message: not a real reply."""
    reply = message.reply_to_message
    topic_root = (
        message.is_topic_message
        and reply is not None
        and (reply.message_id == message.message_thread_id)
    )
    return None if topic_root else reply


async def is_addressed(message: Message, bot: Bot) -> bool:
    """In a group: does this message mention the bot or reply to it?"""
    me = await bot.me()  # cached by aiogram after the first call
    reply = replied(message)
    if reply is not None and reply.from_user and reply.from_user.id == me.id:
        return True
    text = message.text or message.caption or ""
    handle = f"@{me.username}".lower() if me.username else None
    for entity in message.entities or message.caption_entities or []:
        if entity.type == "text_mention" and entity.user and entity.user.id == me.id:
            return True
        if entity.type == "mention" and entity.extract_from(text).lower() == handle:
            return True
    return False


async def without_mention(text: str, bot: Bot) -> str:
    """The text with "@botname" removed, so the core sees only the question."""
    me = await bot.me()
    if not me.username:
        return text.strip()
    handle = f"@{me.username}"
    lowered, out, i = text.lower(), [], 0
    while (j := lowered.find(handle.lower(), i)) >= 0:
        out.append(text[i:j])
        i = j + len(handle)
    out.append(text[i:])
    return " ".join("".join(out).split())


async def is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    member = await bot.get_chat_member(chat_id=chat_id, user_id=user_id)
    return member.status in ADMIN_STATUSES


async def send_long(message: Message, text: str, *, reply: bool | None = None) -> None:
    """Send plain text, escaped for HTML and split at Telegram's limit.

    In groups the first piece replies to the message, so the answer is tied to its question.
    """
    reply = is_group(message) if reply is None else reply
    for i, piece in enumerate(split_message(text)):
        if i == 0 and reply:
            await message.reply(escape(piece))
        else:
            await message.answer(escape(piece))


async def rate_limited(message: Message, limiter: QuestionLimiter) -> bool:
    """True (after a polite reply) when this user has used up their questions for the minute."""
    user_id = message.from_user.id if message.from_user else message.chat.id
    if wait := limiter.check(user_id):
        await send_long(
            message, t("telegram.rate_limited", lang_of(message.from_user), seconds=wait)
        )
        return True
    return False


@contextlib.asynccontextmanager
async def typing(message: Message, action: ChatAction = ChatAction.TYPING) -> AsyncIterator[None]:
    """Show "typing..." until the block ends.

    Not aiogram's ChatActionSender: its exit waits for a pending sendChatAction, which under
    flood control (retried in the session) would delay the answer; here the task is cancelled.
    """
    bot = message.bot
    thread_id = message.message_thread_id if message.is_topic_message else None

    async def keep_typing() -> None:
        while True:
            try:
                await bot.send_chat_action(  # type: ignore[union-attr]
                    chat_id=message.chat.id, action=action, message_thread_id=thread_id
                )
            except Exception as exc:
                log.debug("chat action failed in chat %s: %s", message.chat.id, type(exc).__name__)
            await asyncio.sleep(TYPING_INTERVAL_S)

    task = asyncio.create_task(keep_typing())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
