"""Everyday words of client conversations in English, Portuguese and Russian, as equivalents.

Offline, a question and the message that answers it are matched by their words (BM25 and the
quoted sentence, core/recall/ and core/quote.py), and a company often tells the bot something
in one language that a client asks about in another ("Tem teste grátis?" against "the free
trial is 14 days"). The offline English embedding model does not bridge languages, so a
question's words are also looked up here and their equivalents searched too. The list covers
what clients of a company commonly ask about (prices, plans, trials, support, payment,
documents, data, product features); it is not a dictionary. Each line is one meaning.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from core.dictionaries import holding
from core.language import key_tokens

# en | pt | ru — several words per language allowed, one meaning per line
_EQUIVALENTS = """
price prices pricing cost costs | preço preços custo custa valor | цена стоимость стоить
plan plans tier | plano planos | тариф тарифы план
free | grátis gratuito gratuita | бесплатный бесплатно
trial try | teste avaliação experimentar | пробный триал попробовать
discount discounts deal | desconto descontos | скидка скидки
annual yearly year | anual ano | годовой год ежегодный
monthly month | mensal mês | месячный месяц
pay payment payments paying | pagar pagamento pagamentos | платить оплатить заплатить оплата платёж
card visa mastercard | cartão multibanco | карта
invoice invoices bill | fatura nota boleto | счёт счет
receipt receipts | recibo | чек
contract | contrato fidelização | договор контракт
refund refunds | reembolso devolução devolver | возврат
cancel cancellation cancelation | cancelar cancelamento | отменить отмена
subscription | assinatura | подписка
registration joining enrolment enrollment | inscrição matrícula | регистрация регистрационный вступительный
membership pass passes member members | passe passes mensalidade membro membros sócio sócios | абонемент абонементы
support | suporte atendimento apoio | поддержка
hours schedule | horário horários | часы график
phone telephone call | telefone ligação ligar | телефон звонок звонки позвонить звонить
email | email e-mail | почта email
office | escritório sede | офис
delivery deliver delivers shipping ship send post | entrega entregar entregam envio enviar frete | доставка доставить доставлять доставляете отправить отправка отправлять пересылка переслать
address | endereço morada | адрес
meet meeting | encontro encontrar | встреча встретиться встречаться сбор
weekend weekends | fim-de-semana | выходные
today sameday | hoje sameday | сегодня sameday
consultation consultations appointment | consulta consultas | консультация консультации приём
password pass | senha | пароль
wifi wi-fi internet | wifi internet | вайфай интернет
user users seat seats | usuário usuários licença licenças | пользователь пользователи место места
team | equipe time | команда
company companies business firm | empresa empresas | компания компании фирма
limit limits cap caps | limite limites | лимит ограничение
storage | armazenamento | хранилище
size | tamanho | размер
file files attachment attachments | arquivo arquivos anexo anexos | файл вложение
request requests | requisição requisições | запрос запросы
data | dados | данные
stored hosted store host | armazenados hospedados hospedagem | хранятся хранить
security secure | segurança seguro | безопасность
encryption encrypted | criptografia criptografados | шифрование зашифрованы
integration integrate integrations | integração integra integrar | интеграция интегрироваться
export | exportar exportação | выгрузить экспорт
report reports | relatório relatórios | отчёт отчет
app application | aplicativo app | приложение
android | android | андроид
onboarding implementation setup | implantação onboarding configuração | внедрение подключение настройка
training | treinamento | обучение
manager | gerente | менеджер
sales | vendas | продажи
demo | demonstração demo | демо демонстрация
partner partners | par parceiro parceiros parceira | партнёр партнер партнёрша партнерша
nonprofit nonprofits | ong | нко
language | idioma língua | язык
russian | russo | русский
portuguese | português | португальский
english | inglês | английский
uptime availability | disponibilidade | доступность аптайм
days day | dias dia | дней день дня сутки
eat eats food | comer come comem comida | кушать ест едят еда
live lives | morar mora moram viver vive | жить живёт живут
lasts duration | dura durar duração | длится длиться длительность
week weeks | semana semanas | неделя недели недель
hour hours | hora horas | час часа часов
minute minutes | minuto minutos | минута минуты минут
book booking appointment | agendar agendamento marcar marcação | записаться запись записать
checkin arrival | checkin chegada entrada | заезд заселение
checkout departure | checkout saída | выезд выселение
battery batteries | bateria baterias | батарея батареи аккумулятор
laptop laptops notebook | portátil portáteis notebook | ноутбук ноутбуки
cash | dinheiro numerário | наличные наличный наличными наличка
maintenance | manutenção | обслуживание техобслуживание
emergency sos | emergência sos | экстренный sos
swim swimming | nadar natação | плавать плавание
trousers pants | calças calça | брюки
suit suits | fato fatos terno ternos | костюм костюмы
jacket jackets blazer | casaco casacos paletó blazer | пиджак куртка
damage damages breakage | dano danos estragos | ущерб повреждение повреждения поломка
commission fee | comissão comissões | комиссия
seated sitting | sentado sentados sentadas | сидячих сидя
visit visits callout travelfee | visita visitas deslocação | визит выезд
carpet carpets rug rugs | tapete tapetes carpete carpetes alcatifa | ковёр ковер ковры
engagement | noivado | помолвка
frame frames framing | moldura molduras emoldurar | рамка рамки
settling adaptation | adaptação | адаптация
alignment | alinhamento | развал схождение
helmet helmets | capacete capacetes | шлем шлемы
booth booths | cabine cabines | будка кабинка кабина
crypto bitcoin cryptocurrency | cripto bitcoin criptomoeda | крипта криптовалюта биткоин
room rooms hall | sala salas | зал залы комната
shared dorm dormitory | partilhado partilhada compartilhado dormitório camarata | общий общая
shoot shoots shooting shot shots photoshoot | filmagem filmagens | съемка съёмка съемки фотосессия фотосъемка
pcr | pcr | пцр
turnaround deadline | prazo prazos | срок сроки
child children kid kids son daughter | criança crianças filho filha filhos | ребёнок дети сын дочь
reservation reserve book booking | reserva reservas reservar | бронь бронирование забронировать
mail | correio correspondência | почта письма корреспонденция
document documents docs paperwork id | documento documentos documentação identificação | документ документы удостоверение
late | atraso atrasado atrasar | опоздание опоздать опаздывать
owner | dono dona proprietário proprietária | владелец владелица хозяин хозяйка
night nights evening nightly | noite noites noturno noturna | ночь ночи ночной вечер вечерний
surcharge extra fee | acréscimo extra taxa adicional | доплата наценка сбор
vaccine vaccines vaccinated vaccination shot shots jab | vacina vacinas vacinado vacinada | прививка прививки привит вакцина
insurance insured | seguro seguros | страховка страхование застраховать
deposit deposits upfront | caução depósito sinal | залог депозит предоплата
move moving relocation | mudança mudanças mudar | переезд переехать переезжать перевозить перевезти
driver drivers | condutor condutores motorista | водитель водители
mat mats | tapete tapetes | коврик коврики
furniture | móveis móvel mobília | мебель
cleaning clean | limpeza limpar | уборка убирать чистка
oven | forno | духовка
lift elevator | elevador | лифт
lesson lessons class classes | aula aulas | урок уроки занятие занятия
group groups | grupo grupos turma turmas | группа группы групповой
teacher teachers instructor instructors | professor professora instrutor instrutores | преподаватель учитель инструктор
coach trainer trainers | treinador treinadora treinadores | тренер тренера тренером
private individual | particular particulares individual privado privada privadas | индивидуальный индивидуальное частный
van vans | carrinha carrinhas | фургон фургона
breakfast | pequenoalmoço | завтрак
lunch | almoço | обед
motorhome motorhomes campervan camper | autocaravana autocaravanas | автодом кемпер
cheque cheques | cheque cheques | чек чеком чеки
sedation sedative | sedação sedativo calmante | седация успокоительное
aquaaerobics | hidroginástica hidroginastica | аквааэробика
student students | aluno alunos estudante estudantes | студент студенты ученик ученики
home house | casa domicílio | дом
parking park garage | estacionamento estacionar garagem | парковка парковаться припарковаться парковать
monday mondays | segunda segundas | понедельник
tuesday tuesdays | terça terças terca | вторник
wednesday wednesdays | quarta quartas | среда
thursday thursdays | quinta quintas | четверг
friday fridays | sexta sextas | пятница
saturday saturdays | sábado sábados sabado | суббота
sunday sundays | domingo domingos | воскресенье
open opens opening | aberto aberta abertos abertas abre abrem abrir funciona funcionam | открыт открыты открыто открываться работаете работает
fee fees | taxa taxas | взнос взносы сбор
dropin single | avulsa avulso | разовый разовое разовая
courtesy replacement loaner lend | substituição substituto emprestar | подменный подменная замена
installment installments instalment instalments | parcela parcelas parcelamento prestação prestações | рассрочка
upfront advance prepayment prepay | adiantado adiantamento antecipado antecipadamente | предоплата аванс
urgent urgently rush express | urgente urgência | срочно срочный срочная срочность
full whole entire | inteiro inteira completo completa | полный полная целый целая
pickup collect | buscar recolher recolha | забрать забирать
walkin | semmarcação | беззаписи
firing kiln | cozedura | обжиг
piece pieces item items | peça peças artigo artigos | изделие изделия
christmas xmas | natal | рождество
easter | páscoa | пасха
candle candles | vela velas | свеча свечи
suitcase suitcases luggage | mala malas bagagem | чемодан чемоданы багаж
tent tents | tenda tendas barraca | палатка шатёр шатер
quote quotes estimate | orçamento orçamentos | смета
shower showers | duche duches chuveiro chuveiros banho | душ душевая
changing locker lockers | balneário balneários vestiário vestiários cacifo cacifos | раздевалка шкафчик
extension extensions | extensão extensões alongamento | наращивание
outdoor | outdoor | outdoor
parcel parcels package packages | encomenda encomendas pacote pacotes | посылка посылки
pressure | tensão pressão | давление
measure measurement check | medir medição | измерить измерение
repair repairs fix | reparar reparação conserto consertar arranjar | ремонт починить чинить отремонтировать
drive driving ride riding | conduzir guiar pilotar andar | водить кататься ездить
drivinglicence | drivinglicence | drivinglicence
board boards | prancha pranchas | доска доски
ticket tickets | bilhete bilhetes | билет билеты
dolphin dolphins | golfinho golfinhos | дельфин дельфины
safe safes | cofre cofres | сейф сейфы
touchup touchups | retoque retoques retocar | подправить подправка коррекция
packing wrapping wrap | embalagem embalar embrulhar | упаковка упаковать
arrival | chegada | приехать приезд прибытие
entry admission | entrada entrar | вход
bespoke | bespoke | bespoke
voucher vouchers giftcard giftcards | vale vales giftcard | сертификат ваучер
tasting tastings | prova provas degustação | дегустация дегустации
workshop workshops course courses masterclass | workshop curso cursos | воркшоп курс курсы мастер-класс
farm | herdade fazenda | ферма
tin tins | lata latas | банка банки жестяной
windscreen windshield | windscreen | лобовой лобовое лобовый
tinting tint | película películas | тонировка тонировать
grandpiano | grandpiano | рояль
used secondhand | usado usados usada | used подержанный
inspection inspect | inspeção vistoria | осмотр
ebike ebikes | ebike | электровелосипед
videocall | videochamada videochamadas | видеосвязь видеозвонок
plate plates | prato pratos | тарелка тарелки
mug mugs | caneca canecas | кружка кружки
clay | barro argila | глина
pottery ceramics | cerâmica olaria | керамика гончарный
meetingroom | meetingroom | meetingroom
editing edit | edição editar | монтаж
plan plans | plano planos | тариф
shirt shirts tshirt tshirts | camisola camisolas tshirt | футболка футболки
pony ponies | pónei póneis | пони
sunset | pordosol | закат
crossing | travessia travessias | переправа
tree trees | árvore árvores | дерево деревья
garden gardens yard | jardim jardins quintal | сад двор участок
tune tuning | afinar afinação | настройка настроить
scooter scooters | trotinete trotinetes patinete | самокат самокаты
grooming groom | tosquia tosa | груминг
date dates | data datas | дата даты
boat boats | barco barcos moliceiro | лодка лодки катер
january | janeiro | январь
february | fevereiro | февраль
march | março | март
april | abril | апрель
may | maio | май
june | junho | июнь
july | julho | июль
august | agosto | август
september | setembro | сентябрь
october | outubro | октябрь
november | novembro | ноябрь
december | dezembro | декабрь
daypass | daypass | daypass
ac aircon conditioner split | climatização | кондиционер кондей сплит
vegetarian veggie | vegetariano vegetariana | вегетарианский
vegan | vegano vegana | веганский
scoop scoops | bola bolas | шарик шарики
lounger loungers sunbed sunbeds sunlounger deckchair | espreguiçadeira espreguiçadeiras | шезлонг шезлонги лежак
insole insoles orthotics | palmilha palmilhas | стелька стельки
toilet toilets restroom restrooms bathroom wc loo | toilete sanitários | туалет туалеты уборная
windbreak windbreaks windbreaker windbreakers | | ветрозащита
rod rods | cana canas | удочка удочки
strap straps | bracelete pulseira | ремешок браслет
bedding linen sheets | lençóis lençol | бельё белье простыни
digger diggers excavator excavators | escavadora escavadoras retroescavadora | экскаватор экскаваторы
intermediate | intermédio intermédia intermediário | средний средняя среднего
trampoline trampolines | trampolim trampolins | батут батуты батутов
miss missed missing | faltar falto faltei perder | пропустить пропущу пропустил пропуск
peel peeling peels | descascar descasca descascou | отслаиваться шелушиться
fever temperature | febre | температура жар
bin bins container containers | contentor contentores | контейнер контейнеры бак баки
coaster coasters | base bases | подставка подставки подставок
firewood wood logs | lenha | дрова дров
stall stalls kiosk | banca bancas quiosque | ларёк ларек палатка
holiday holidays | feriado feriados | праздник праздники праздничный праздничные
rain raining rainy | chuva chover chove chuvoso | дождь
asbestos | amianto | асбест
medication medicine medicines pills | medicação medicamento medicamentos comprimidos | лекарство лекарства таблетки
drip drips iv | soro | капельница капельницы
shoe shoes footwear sneakers trainers | sapato sapatos calçado ténis sapatilhas | обувь туфли кроссовки кеды
boot boots | bota botas | сапоги ботинки
sole soles resole | sola solas | подошва подошвы подмётка
zipper zippers zip | fecho fechos | молния
season seasons | temporada época | сезон
milk | leite | молоко
chicken | frango galinha | курица цыплёнок
couple couples | casal casais | пара пары
half | metade meio meia | половина половинка
ashes | cinzas | прах пепел
burger burgers hamburger hamburgers | hambúrguer hambúrgueres | бургер бургеры гамбургер
included include includes inclusive | incluído incluída incluídos incluídas inclui incluem | включено включён включен включены входит входят
strawberry strawberries | morango morangos | клубника
"""

# a word and the broader meaning it is part of, one way: "вы работаете в субботу?" is answered
# by "в выходные с 10 до 18", but a question about the weekend is not one about Saturday
_BROADER = (
    (
        "saturday sunday saturdays sundays sábado domingo sábados domingos суббота воскресенье",
        "weekend weekends выходные выходной",
    ),
    (
        "monday tuesday wednesday thursday friday mondays fridays понедельник вторник среда "
        "четверг пятница",
        "weekday weekdays будни будний",
    ),
    # a meal of the day and meals: "can we have dinner at the club?" is answered by "não
    # servimos refeições" (the twenty-ninth round), not "lunch" by a dinner's price
    (
        "dinner lunch breakfast jantar almoço ужин обед завтрак",
        "meal meals refeição refeições питание",
    ),
)


# a word and the kind of thing it is one of, for the message side only: "работаю вт, чт и сб"
# answers "em que dias?" (a pharmacy's Russian-speaking pharmacist was not found for it), but
# "the car is 35€/day" says nothing about Mondays
_KIND_OF = (
    (
        "monday tuesday wednesday thursday friday saturday sunday segunda terça quarta quinta "
        "sexta sábado domingo понедельник вторник среда четверг пятница суббота воскресенье "
        # the plurals too, which the lemmatiser reads otherwise ("quarta" is "quartar",
        # "quartas" is "quarta": "so às quartas e quintas" answered no "on what days?")
        "segundas terças quartas quintas sextas sábados domingos",
        "day days dia dias день дни",
    ),
)


def _one_way(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Each word's lemma on a pair's left -> the lemmas of the words on its right."""
    out: dict[str, set[str]] = {}
    for left, right in pairs:
        keys = set(key_tokens(right))
        for k in key_tokens(left):
            out.setdefault(k, set()).update(keys)
    return {k: frozenset(v) for k, v in out.items()}


def _inverse(mapping: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for k, values in mapping.items():
        for v in values:
            out.setdefault(v, set()).add(k)
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def _kinds() -> dict[str, frozenset[str]]:
    """Each word's lemma -> the lemmas of the kind of thing it is one of."""
    return _one_way(_KIND_OF)


@lru_cache(maxsize=1)
def _instances() -> dict[str, frozenset[str]]:
    """Each kind's lemma -> the lemmas of the things that are one of it."""
    return _inverse(_kinds())


def instances(lemma: str) -> frozenset[str]:
    """The lemmas of the things that are one of this kind ("dias": the weekdays)."""
    return _instances().get(lemma, frozenset())


@lru_cache(maxsize=1)
def _broader() -> dict[str, frozenset[str]]:
    """Each word's lemma -> the lemmas of the broader meaning it is part of."""
    return _one_way(_BROADER)


@lru_cache(maxsize=1)
def _narrower() -> dict[str, frozenset[str]]:
    """Each broader meaning's lemma -> the lemmas of the words that are part of it."""
    return _inverse(_broader())


@lru_cache(maxsize=1)
def _groups() -> dict[str, frozenset[str]]:
    """Each word's lemma -> the lemmas of every word with its meaning."""
    out: dict[str, set[str]] = {}
    for line in _EQUIVALENTS.strip().splitlines():
        group = {k for part in line.split("|") for k in key_tokens(part)}
        # a Portuguese word stands for itself too: the lemmatiser reads "entrega" as the verb
        # "entregar" but "entregas" as the noun "entrega", and "segunda" / "segundas" as
        # "segundo" / "segundar" ("a entrega é grátis?" found nothing about "entrega"
        # beside "Entregas só no centro"); not one that is an English word too ("come")
        group |= {w for w in line.split("|")[1].split() if "en" not in holding(w)}
        for k in group:
            out.setdefault(k, set()).update(group)
    return {k: frozenset(v) for k, v in out.items()}


def equivalents(lemmas: Iterable[str]) -> set[str]:
    """The lemmas with the same meaning in the other languages, and of the broader meaning a
    word is part of (a weekday's part of the week); the given ones excluded."""
    given = set(lemmas)
    groups, broader = _groups(), _broader()
    return {e for k in given for e in (*groups.get(k, ()), *broader.get(k, ()))} - given


def answered_about(lemmas: Iterable[str]) -> set[str]:
    """What a message's words answer about: their equivalents, the narrower words of a
    broader meaning they name ("в выходные с 10 до 18" answers about Saturday), and the kind
    of thing they are one of (a weekday answers "which days?")."""
    given = set(lemmas)
    narrower = {n for w in given for n in _narrower().get(w, ())}
    kinds = {k for w in given for k in _kinds().get(w, ())}
    return (equivalents(given) | narrower | kinds) - given


def widened(text: str) -> str:
    """The text followed by its words' equivalents (a query for the word index)."""
    extra = equivalents(key_tokens(text))
    return f"{text} {' '.join(sorted(extra))}" if extra else text
