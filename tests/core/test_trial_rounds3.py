"""Client questions of the trial rounds from the forty-first on (tests/fixtures/trials,
bench/trials.py; the earlier rounds' are in test_trial_rounds.py and test_trial_rounds2.py),
each asked as bench.trials asks it: the chat told with its authors, one minute apart, and its
waits, up to the question. Each case failed on the build before its fix, but one guard
said so where it stands."""

from __future__ import annotations

import pytest

from core.identity import first_name_like
from core.language import english_not_a_thing
from core.replies import answers_nothing
from core.restated import UPDATE, value_kinds
from core.sentences import banter
from core.service import Core
from core.unknown import situated, unknown_words
from tests.core.replay import answered_as_the_bench_asks, first_line, staff_before


@pytest.mark.parametrize(
    ("chat", "question"),
    [
        # the forty-first and forty-second rounds (a vegetable box, PVC windows, home alarms,
        # reformer pilates, a nutritionist, a coding bootcamp; segway tours, jeep safaris, a
        # seafood restaurant, RC models, car audio, a saddlery; 55 and 62 / 90 as first
        # runs): "passa para" / "passa de ... para" / "mudança" say a later message updates
        # an earlier one, shown under it
        ("pvcwindows", "hi, if i sign the order this week when would you come to fit them?"),
        (
            "jeepsafari",
            "we do the sunrise trip 14 october, what time do u collect us at the hotel",
        ),
        # cash is "наличка", a yearly service "ежегодное обслуживание" / "manutenção anual",
        # an emergency button a "botão SOS"
        ("vegbox", "можно отдать деньги водителю наличкой?"),
        ("homealarms", "сколько стоит ежегодное обслуживание сигнализации?"),
        (
            "homealarms",
            "a minha avó tem 82 anos e vive sozinha, têm alguma coisa tipo botão de emergência?",
        ),
        # "as part of", the client's place and its bedrooms name no thing the chat lacks
        (
            "rcmodels",
            "tenho um arrma usado que anda bem, aceitam como parte do pagamento dum novo?",
        ),
        (
            "homealarms",
            "how long will the technician be in my place for the install? its a 2 bedroom "
            "apartment",
        ),
        # the forty-third and forty-fourth rounds (balloon decoration, marquee hire, a photo
        # booth, a virtual office, home office rental, co-living; a trout fishing park, a
        # berry farm, an alpaca farm, archery, a tennis club, a kitesurf school; 46 and 69 /
        # 90 as first runs): strawberries "morangos", a breakage "поломка"; what the client is
        # and where, without an article
        ("berryfarm", "what's the strawberry price per kilo now end of june?"),
        ("marquees", "есть залог за поломки? когда его вернут?"),
        ("berryfarm", "sou professora numa escola em Lagos, podemos ir com a turma numa sexta?"),
        # a word after "just", "come", "wanna" is a verb, not a thing the chat lacks (also an
        # earlier knitting chat: "I'll miss one class bc of a trip, do I just lose it?")
        ("archery", "hi can i bring my own recurve and just shoot for a bit? how much is that"),
        ("knitting", "I'll miss one class bc of a trip, do I just lose it?"),
        # the forty-fifth and forty-sixth rounds (POS and invoicing for shops, kitchen hood
        # cleaning, workwear, a piri-piri takeaway, a wine shop, chocolates; a circus school, a
        # chess club, a robotics club, luggage repair, garden machinery, rug cleaning; 56 and
        # 57 / 90 as first runs): an item is a "peça", Christmas "xmas" / "Natal"; coming by
        # car from somewhere and travelling name no thing the chat lacks
        ("workwear", "how much is embroidery per item? ordering in june"),
        ("circusschool", "how much is the xmas camp for the 4 days?"),
        ("circusschool", "we'll come by car from cascais, where do we leave the car?"),
        ("luggagerepair", "vocês vendem malas? a minha já não tem conserto e viajo sexta"),
        # the forty-seventh and forty-eighth rounds (a care home, a funeral agency, meals for
        # older people, a mortgage broker, condominium management, home inspections; a fado
        # house, a comedy club, a painting studio, a car inspection centre, motorbike rental,
        # luggage storage; 42 and 64 / 90 as first runs): Easter "páscoa", a kid "miúdo";
        # where the home the client buys is
        (
            "carehome",
            "quanto custa o almoço de páscoa para nós? somos 2 adultos e um miúdo de 6 anos",
        ),
        (
            "homeinspection",
            "we're buying a two storey villa near Lagos, can you check the roof too? the ladder "
            "won't reach",
        ),
        # the forty-ninth and fiftieth rounds (a bubble tea bar, career coaching, meal prep
        # boxes, a lash studio, a bridal boutique, a laser clinic; a hardware store in Funchal,
        # a farm supply store and a judo club in the Azores, karaoke rooms, hot tub rental,
        # football pitches; 50 and 61 / 90 as first runs): "near" names no thing, nor where
        # the client's villa or airbnb is
        ("hottubs", "hi we have a villa near Sagres for a week, is delivery free there?"),
        ("hottubs", "im 19 and want a hot tub for my bday party at our airbnb in Albufeira"),
        # the fifty-first and fifty-second rounds (flooring, water treatment, pellet stoves,
        # calligraphy, bartending, soap and candle workshops; a cattery, a farrier, dog
        # hydrotherapy, a tasca, a river bar, a tea house; 53 and 48 / 90 as first runs): a
        # candle is a "vela", "desde este mês" and "o preço antigo" say a price was updated;
        # the client's flight and where they live, with words between, name no thing
        ("soapcandles", "how much is the candle class if we come in june? 2 people"),
        (
            "bartending",
            "quanto custa por pessoa o workshop de cocktails em grupo? queremos marcar para maio",
        ),
        ("cattery", "can i pick up my cat saturday around 5pm after my flight?"),
        ("farrier", "я живу примерно в 30 км от Голегана, у меня одна лошадь. сколько за выезд?"),
        # what 312 chats' wrong answers had most in common (2026-12-06, before the fifty-third
        # round): a later update not shown under the sentence it updates. A value that moved
        # ("passou para", "goes up to"), a day it holds from ("a partir de hoje", "с
        # понедельника"), a replaced value after a bare "не" ("в 17:00, не в 16:00"), and the
        # label's mark ("поправка:" a sentence before the value) say an update
        ("beautysalon", "how much is the hydrating facial now?"),
        ("laundromat", "скок щас стоит постирать и высушить 8 кг?"),
        (
            "farmsupply",
            "quantos sacos tenho de pedir no mínimo para me levarem a casa em São Sebastião?",
        ),
        (
            "hardwarestore",
            "preciso de um vidro cortado à medida para um quadro, quanto levam pelo corte?",
        ),
        ("perfume", "what time is the afternoon session on saturday?"),
        ("gamingcafe", "a que horas começa o torneio de sexta?"),
        # the team joking among themselves answers no client ("lol I'll market it as moon
        # night 🌝" for gift vouchers, "someone sent a whatsapp jpeg 😬" over "jpeg из вотсапа
        # не берём", "quem deixou a janela aberta ... 🥶" for parking); a correction with a
        # laugh still does (the cheese shop's case: answered before too, a guard, the one
        # case here that did not fail before its fix)
        ("stargazing", "do you sell gift vouchers? want to offer a night to my parents"),
        ("tshirtprint", "can I just send you the design as a jpg from my phone?"),
        ("tshirtprint", "estão abertos ao domingo para ir buscar a encomenda?"),
        ("camerarepair", "há estacionamento perto da loja? vou de carro de viseu"),
        ("cheese", "posso receber a encomenda numa quinta?"),
        # a question the team reports with its answer after a dash ("туристы спрашивают про
        # собак — маленькие собаки можно, если на руках") answers it
        ("tuktuk", "can i bring my chihuahua, she's tiny"),
        (
            "balloondecor",
            "a minha sogra é alergica ao latex, conseguem fazer a decoração sem isso?",
        ),
        (
            "homeofficerental",
            "i need an invoice with my company's portuguese tax number, is that possible?",
        ),
        ("painters", "tenho um bebé de 4 meses em casa, o cheiro da tinta faz mal?"),
        # an English word that is never a noun names no thing the chat lacks ("hang",
        # "redone", "treated"; core/data/english_not_things.txt)
        ("neonsigns", "I live in Alvalade, how much for you to come and hang it?"),
        ("pallets", "we ship to brazil and need treated pallets, how many days does it take?"),
        (
            "poolrepair",
            "we want the pool redone in microcement, how long till we can fill it again?",
        ),
    ],
)
async def test_a_trial_question_asked_as_the_bench_asks_it(
    use_core: Core, chat: str, question: str
) -> None:
    assert await answered_as_the_bench_asks(use_core, chat, question)


def test_a_change_said_in_portuguese_is_an_update() -> None:
    for text in (
        "prazo passa para 6-7 semanas a partir de hoje",
        "manutenção anual passa de 60€ para 75€",
        "mudança no sunrise: o pickup é às 5h45",
    ):
        assert UPDATE.search(text), text
    assert not UPDATE.search("o autocarro passa pela praça às 9h")
    for text in (
        "a limpeza hidratante com máscara passou para 62€",
        "from Monday wash+dry 8kg goes up to 9,50€",
        "a partir de hoje entregas só com mínimo 15 sacos",
        "с понедельника 2,50€ за рез",
        "сансет круиз с июня 40€, не 35",
    ):
        assert UPDATE.search(text), text
    # "a partir de" a price is no day
    assert not UPDATE.search("vales de oferta a partir de 50€, válidos 1 ano")


def test_what_the_client_is_and_where_is_their_situation() -> None:
    assert situated("sou professora numa escola em Lagos, podemos ir?", "Lagos")
    assert situated("somos enfermeiras num hospital em Faro, há desconto?", "Faro")
    assert not situated("sou cliente, vocês têm desconto em Lagos?", "Lagos")
    # where they go away to (the forty-sixth round)
    assert situated("уезжаем на лето в Россию, можно оставить у вас ковер?", "Россию")
    # where the home they buy is (the forty-seventh round)
    assert situated("we are buying a 2 bedroom flat in Portimão, how much is it?", "Portimão")
    assert situated("a casa é em Mértola, vocês vão lá fazer a vistoria?", "Mértola")
    assert not situated("do you do home inspections in Porto?", "Porto")


def test_a_word_the_chat_lacks_is_said_once() -> None:
    """ "do i have to pay the whole thing in advance if we order for the whole class?" said it
    had nothing about "whole, whole, class" (the forty-ninth round)."""
    said = unknown_words(
        "do i have to pay the whole thing for the Whole class?",
        frozenset({"whole", "class", "pay"}),
        lambda _: 0.0,
        set(),
    )
    assert [w.lower() for w in said].count("whole") == 1, said


def test_banter_is_a_laugh_with_no_number_and_no_rule() -> None:
    assert banter("whose muddy boots are by the door 😂")
    assert banter('lol I\'ll market it as "moon night" 🌝')
    assert banter("дети унесли наверно 🙈")
    assert not banter("SUP we don't rent anymore, too many lost paddles lol")  # a rule
    assert not banter("Dmitri says his back disagrees 😂 stacking is 25€ per ton")  # a number
    assert not banter("paypal não, já disseram várias vezes 😅")
    assert not banter("who finished the coffee and didn't buy more")  # no laugh


def test_a_reported_question_with_its_answer_after_a_dash_answers() -> None:
    assert not answers_nothing(["туристы спрашивают про собак — маленькие собаки можно"], 0)
    assert not answers_nothing(["cliente perguntou se passamos fatura com NIF — sim, sempre"], 0)
    # without an answer after it, it stays a question
    assert answers_nothing(["client asked about deposit — what do we tell them?"], 0)
    assert answers_nothing(["someone asked if they can bring a dress — Marta?"], 0)
    assert answers_nothing(["a mãe de uma cliente perguntou se temos sem glúten"], 0)


def test_an_english_word_never_a_noun_names_no_thing() -> None:
    for word in ("remove", "recycled", "totally", "hang", "redone"):
        assert english_not_a_thing(word), word
    # a noun, an -ing form (often a noun: parking, catering), an adjective, a name
    for word in ("house", "parking", "catering", "electric", "chihuahua", "ship"):
        assert not english_not_a_thing(word), word


CLINIC = [
    "Clínica Sorriso: consulta de avaliação custa 60 euros, limpeza 45 euros",
    "we are open mon-fri 9:00-19:00, saturdays 9-13, closed on sundays",
    "Dr. Marta Reis does implants, Dr. Pedro Alves does orthodontics",
    "парковка бесплатная для пациентов, вход со двора",
    "whitening costs 250 euros, two sessions",
    "alguém viu o carregador do portátil?",
    "the x-ray machine is back from repair",
    "пациентам с брекетами контроль раз в месяц",
    "we accept cards and MB Way, no cheques",
    "Pedro is on holiday the week of the 20th",
    "implant consultation is free if you do the implant with us",
    "a máquina de café avariou outra vez",
    "crianças a partir dos 6 anos, acompanhadas por um adulto",
    "the dental plan Médis is accepted, Multicare not",
    "lunch order today: sushi?",
    "first visit: please bring your ID and the list of medicines you take",
    "a partir de janeiro a limpeza passa para 50 euros",
]


@pytest.mark.parametrize(
    "question", ["quanto vai custar a limpeza em janeiro?", "a limpeza vai ficar mais cara?"]
)
async def test_a_quoted_update_is_shown_under_what_it_updates(
    use_core: Core, question: str
) -> None:
    """The update was the quote, alone: a client read the price from January and not the
    price today. The earlier sentence it updates comes first, the update under it, as a
    later update is shown under a quote (core/restated._newest_related). Not the whitening price,
    which shares only "euros" with the update (found by hand in the console, 2026-12-07)."""
    first, answer = await first_line(use_core, CLINIC, question)
    assert "limpeza 45 euros" in first, answer
    assert "passa para 50 euros" in answer.splitlines()[1], answer
    assert "whitening" not in answer, answer


async def test_an_update_comes_under_the_sentence_of_its_thing_not_a_newer_one(
    use_core: Core,
) -> None:
    """ "Correção: fotos tipo passe agora 14€" was quoted alone. Two earlier sentences give
    a price and share a word with it: "Fotos tipo passe: 12€ por 6 fotos" (three words) and,
    newer, "Sessão retrato em estúdio: 1h, 80€, inclui 10 fotos editadas" (one): the first
    is what it updates (core/restated._newest_related prefers more than a word to the newest)."""
    question = "How much are passport photos?"
    first, answer = await first_line(use_core, staff_before("photostudio", question), question)
    assert "Fotos tipo passe: 12€" in first, answer
    assert "agora 14€" in answer.splitlines()[1], answer
    assert "retrato" not in answer, answer


SALON = [
    "bom dia! lembrete de preços: corte de cabelo senhora 25€, homem 15€, criança até 10 anos 10€",
    "madeixas a partir de 60€, depende do comprimento",
    "horário: ter-sáb 9h-19h, domingo e segunda fechado",
    "клиентам: оплата картой, MB Way или наличными",
    "we don't do tattoos or piercings, only hair and nails",
    "manicure 12€, gel 20€",
    "парковка — платная на улице, бесплатная у Continente в 200 м",
    "alguém sabe onde está a chave do armazém?",
    "a Sofia está de férias até dia 15",
    "correção: corte homem agora 17€ a partir de segunda",
    "запись по телефону 289 555 010 или в Instagram",
]


async def test_a_price_update_is_no_later_word_on_opening_hours(use_core: Core) -> None:
    """ "are you open on monday?" quoted the hours and, under them, "Later: correção: corte
    homem agora 17€ a partir de segunda": an update and the word "segunda", but a price, where
    the quote gives times (core/restated._same_kind; found by hand, 2026-12-07). The price
    update still comes under the price list."""
    first, answer = await first_line(use_core, SALON, "are you open on monday?")
    assert "segunda fechado" in first, answer
    assert "17€" not in answer, answer
    _, priced = await first_line(use_core, [], "how much is a men's haircut?")
    assert "homem 15€" in priced.splitlines()[0] and "17€" in priced.splitlines()[1], priced


def test_an_update_replaces_a_value_of_its_own_kind() -> None:
    """What _newest_related asks of the sentence an update updates: a value of the same kind. The
    trial chats paired "o preço da aula subiu para 70€" with "reembolso até 48h antes da
    aula", and "a idade mínima passa a 10 anos" with the tickets printer out of ink."""
    assert value_kinds("a sessão normal de fisioterapia custa 40€, 50 minutos") == {
        "money",
        "duration",
    }
    assert value_kinds("correção: a partir de junho a sessão normal passa a 45€") == {"money"}
    assert value_kinds("reembolso total até 48h antes da aula") == {"clock", "duration"}
    assert value_kinds("R$ 129 por usuário") == {"money"}
    assert value_kinds("aula experimental é grátis") == {"money"}  # free is a price
    assert value_kinds("теперь работаем до 14:00") == {"clock", "duration"}
    assert value_kinds("idade mínima 8 anos") == {"period"}
    assert value_kinds("válido 1 ano") == value_kinds("теперь 6 месяцев")  # a period both
    assert value_kinds("a impressora dos bilhetes ficou sem tinta outra vez") == set()


GARAGE = [
    "revisão completa de um carro pequeno custa 120€, inclui óleo e filtros",
    "troca de pneus: 15€ por pneu, equilibragem incluída",
    "we are closed on saturdays in august",
    "Алексей делает диагностику по вторникам и четвергам, 35 евро",
    "the courtesy car is free for repairs over 500€",
    "correção: a revisão completa passou para 135€ desde 1 de dezembro",
]


async def test_an_update_is_shown_in_a_chat_of_a_few_messages(use_core: Core) -> None:
    """A garage's chat of six messages: "how much is a full service?" showed the 120€ alone.
    No word two of six messages share reaches the idf of a rare word (~15% of the messages),
    so the correction was never paired with it; a word only the quote and the update hold is
    rare (MessageIndex.rare; found by hand in the console, 2026-12-07)."""
    question = "how much is a full service for my small car?"
    first, answer = await first_line(use_core, GARAGE, question)
    assert "120€" in first, answer
    assert "passou para 135€" in answer.splitlines()[1], answer


@pytest.mark.parametrize(
    ("chat", "question"),
    [
        ("conservas", "Можно отправить посылку в Германию? сколько стоит?"),
        ("catering", "delivery to Cascais, how much?"),
        ("florist", "can you deliver a bouquet to Braga?"),
        ("artsupplies", "a minha encomenda dá 55€, pago entrega para Lisboa?"),
    ],
)
async def test_where_an_order_is_sent_is_the_clients_and_the_delivery_rule_answers(
    use_core: Core, chat: str, question: str
) -> None:
    """ "can you deliver a bouquet to Braga?" answered "I have nothing about Braga" before the
    rule that answers it. Where an order goes is the client's place, as where they live is
    (unknown.situated): the delivery rule is the answer (the fifty-seventh round's tinned-fish
    shop; three chats of earlier rounds gained their answer by it)."""
    assert await answered_as_the_bench_asks(use_core, chat, question)


def test_a_first_name_is_one_across_scripts_and_cases() -> None:
    """A client writes a staff member's name in the other script and in a Russian case
    ("массаж у Ольги" of Olga): it names someone who writes in the chat, not a thing the chat
    never mentions. In one script only the same name is one."""
    for written, author in (("Ольги", "Olga"), ("Инеш", "Inês"), ("Дмитрия", "Dmitri")):
        assert first_name_like(written, author), written
    for written, author in (("Мартиника", "Marta"), ("Joana", "João"), ("Ana", "Anna")):
        assert not first_name_like(written, author), written


async def test_a_staff_member_named_in_the_other_script_is_no_unknown_name(
    use_core: Core,
) -> None:
    """ "Сколько сейчас стоит спортивный массаж у Ольги?" answered "I have nothing about
    «Ольги»" though Olga wrote the price (the fifty-eighth round's osteopathy clinic)."""
    question = "Сколько сейчас стоит спортивный массаж у Ольги?"
    assert await answered_as_the_bench_asks(use_core, "osteopathy", question)


async def test_a_word_of_grammar_the_question_parses_as_a_thing_is_not_said_back(
    use_core: Core,
) -> None:
    """ "quanto fica a cada um?" answered "Ainda não tenho nada sobre cada": the question's
    parse took "cada" (each) for a thing the chat lacks, past the list of words never said
    back that the quote's hedge already kept it out by (the sixty-fourth round)."""
    question = (
        "somos três colegas do mesmo mestrado e temos todos dúvidas em regressão. dá para ter "
        "explicação juntos? quanto fica a cada um?"
    )
    for text in staff_before("statshelp", question):
        await use_core.remember("c", author="Inês", text=text)
    got = await use_core.ask("c", question)
    assert "cada" not in got.answer.splitlines()[0], got.answer


@pytest.mark.parametrize(
    ("chat", "question", "word"),
    [
        ("kidscycling", "where exactly in the park do we meet? it's our first class", "first"),
        (
            "outboards",
            "I'm away until the end of the month and the engine will probably be ready before, "
            "is it ok if it stays at yours a couple of weeks?",
            "couple",
        ),
    ],
)
async def test_an_order_or_an_amount_is_no_thing_the_chat_lacks(
    use_core: Core, chat: str, question: str, word: str
) -> None:
    """ "it's our first class" said "I have nothing about first" before the meeting point, "a
    couple of weeks" "nothing about couple" (the sixty-third and sixty-fourth rounds; the
    first is answered since, the second quotes the wrong rule)."""
    for text in staff_before(chat, question):
        await use_core.remember("c", author="Rui", text=text)
    got = await use_core.ask("c", question)
    assert word not in got.answer.splitlines()[0], got.answer
