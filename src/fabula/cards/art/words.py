"""The original deck's descriptions in each language of the client (`LANGUAGES`).

A twist does not write its sentence: it says which of its sentences fits the picture and with
which parts (a `Told`: the subject, the thing beside it, the scene, the mood, and the few words
it chose, such as whether a giant is tall or big). `say` puts that in words in one language, from
the sentence of that twist in that language (`SENTENCES`) and the words of each part: in English
the parts' own (`Subject.noun`, `Scene.phrase`, `Palette.phrase`), in Chinese `WORDS`. So every
language's description is composed of the same parts in the same way, and the English is exactly
the sentence the cards always had (what the bots read, and the alt text of an English page).

Chinese is not English word for word: the place and the hour come first ("黃昏時，在靜謐的湖畔，…"),
a thing is counted with its measure word ("一枚貝殼", many: "一枚枚貝殼"), and an adjective goes
between the two ("一枚小小的貝殼").

>>> from fabula.cards.original import original_deck
>>> card = original_deck().cards[0]
>>> card.description
'An old key is lifted into the sky by a bunch of colourful balloons in a valley below snowy mountains at dawn.'
>>> card.description_in("zh-Hant")
'黎明時分，在雪山下的山谷裡，一把舊鑰匙被一大串五顏六色的氣球吊上了天空。'
>>> card.description_in("zh-Hans")
'黎明时分，在雪山下的山谷里，一把旧钥匙被一大串五颜六色的气球吊上了天空。'
"""

from __future__ import annotations

from dataclasses import dataclass

from .palettes import Palette
from .settings import Scene
from .subjects import Subject

#: The client's languages (`fabula.protocol.LANGUAGE_NAMES`), English first: the deck's own.
LANGUAGES = ("en", "zh-Hant", "zh-Hans")


@dataclass(frozen=True, slots=True)
class Told:
    """What a twist's sentence says of a picture, before it is put in words: which of the twist's
    sentences (``sentence``, a key of `SENTENCES`), about what and where, and the words it chose
    (``choices``: ``("size", "tall")`` says a giant is "as tall as a hill")."""

    sentence: str
    subject: Subject
    scene: Scene
    pal: Palette
    other: Subject | None = None
    choices: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Words:
    """What the parts of a picture are called in one language other than English: each subject
    (by `Subject.name`) as its measure word and its name (``("枚", "貝殼")``), each setting (by
    `Scene.name`) and mood (by `Palette.mood`) as a phrase, each of a twist's choices (``size.tall``)."""

    subjects: dict[str, tuple[str, str]]
    settings: dict[str, str]
    moods: dict[str, str]
    choices: dict[str, str]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def say(told: Told, language: str) -> str:
    """``told`` as one sentence in ``language`` (one of `LANGUAGES`)."""
    template = SENTENCES[language][told.sentence]
    s, o = told.subject, told.other
    if language == "en":
        where = f"{told.scene.phrase} {told.pal.phrase}" if told.scene.outdoor else told.scene.phrase
        fields = {"S": cap(s.noun), "s": s.noun, "Many": cap(s.many), "where": where}
        if o is not None:
            fields |= {"o": o.noun, "obare": o.bare}
        fields |= {name: ENGLISH_CHOICES[f"{name}.{value}"] for name, value in told.choices}
        return template.format(**fields)
    words = WORDS[language]
    setting = words.settings[told.scene.name]
    where = f"{words.moods[told.pal.mood]}，{setting}" if told.scene.outdoor else setting
    measure, name = words.subjects[s.name]
    fields = {"a": f"一{measure}", "n": name, "many": f"一{measure}{measure}", "where": where}
    if o is not None:
        other_measure, other_name = words.subjects[o.name]
        fields |= {"oa": f"一{other_measure}", "on": other_name}
    fields |= {name: words.choices[f"{name}.{value}"] for name, value in told.choices}
    return template.format(**fields)


#: Each twist's sentences (``twist`` or ``twist.variant``) in each language. English: ``{S}`` the
#: subject with its article, capitalised (``{s}`` not), ``{Many}`` its plural, ``{o}`` the other
#: thing, ``{obare}`` without its article. Chinese: ``{a}`` 一 and the subject's measure word,
#: ``{n}`` its name, ``{many}`` 一 and its measure word twice, ``{oa}`` and ``{on}`` the other's.
#: Both: ``{where}`` the setting and the mood, and the twist's choices by name (``{size}``).
SENTENCES: dict[str, dict[str, str]] = {
    "en": {
        "giant.water": "{S} {size} rises out of the water {where}, and a tiny sailing boat passes at its foot.",
        "giant.land": "{S} {size} {posture} {where}, and a tiny person in a coat looks up at it.",
        "floating": "{S} floats high in the air {where}, held on a long string by a small person below.",
        "upside_down": "{S} hangs upside down {hang} {where}.",
        "bubble": "{S} is sealed inside a glass bubble that {rests} {where}.",
        "reflection": "{S} stands on a rock {where}, but its reflection in the water is {o}.",
        "world_inside.teacup": "A tiny {obare} stands in the tea of a large teacup {where}.",
        "world_inside.book": "A tiny {obare} rises from the pages of an open book {where}.",
        "world_inside.bathtub": "A tiny {obare} stands in the water of a clawfoot bathtub {where}.",
        "world_inside.bottle": "A tiny {obare} stands inside a corked glass bottle {where}.",
        "world_inside": "A tiny {obare} stands inside {s} {where}.",
        "rain": "{Many} rain down from a dark cloud {where} onto a small person holding an umbrella.",
        "stairs_up": (
            "A long staircase climbs from the ground into the sky toward {s} {where}, and a small person is on the way up."
        ),
        "sky_swim": "{S} swims through the air {where}, far from any water, trailing bubbles.",
        "glow": "{S} glows with a warm light {where}, the only light for a small person standing beside it.",
        "rooted": "{S} has grown roots into the ground and leafy branches from its top {where}.",
        "balloons": "{S} is lifted into the sky by a bunch of colourful balloons {where}.",
        "moon_swap": "{S} shines in the sky where the moon should be, {where}.",
        "shadow.indoor": "{S} stands {where}, but the shadow it throws on the wall has the shape of {o}.",
        "shadow.outdoor": "{S} stands {where}, but the long shadow it casts has the shape of {o}.",
        "carries": "{S} {moves} {where} carrying {o} on its back.",
    },
    "zh-Hant": {
        "giant.water": "{where}，{a}像山一樣{size}的{n}從水中升起，一艘小小的帆船從它腳邊駛過。",
        "giant.land": "{where}，{a}像山一樣{size}的{n}{posture}，一個穿大衣的小小身影抬頭望著它。",
        "floating": "{where}，{a}{n}高高飄在空中，下方一個小小的身影用一根長長的繩子牽著它。",
        "upside_down": "{where}，{a}{n}{hang}倒掛下來。",
        "bubble": "{where}，{a}{n}被封在一顆玻璃泡泡裡，泡泡{rests}。",
        "reflection": "{where}，{a}{n}立在一塊岩石上，但水中的倒影卻是{oa}{on}。",
        "world_inside.teacup": "{where}，一個大茶杯的茶水裡，立著{oa}小小的{on}。",
        "world_inside.book": "{where}，一本攤開的書上，{oa}小小的{on}從書頁間升起。",
        "world_inside.bathtub": "{where}，一個貓腳浴缸的水裡，立著{oa}小小的{on}。",
        "world_inside.bottle": "{where}，一個塞著軟木塞的玻璃瓶裡，立著{oa}小小的{on}。",
        "world_inside": "{where}，{a}{n}裡立著{oa}小小的{on}。",
        "rain": "{where}，{many}{n}從一片烏雲中紛紛落下，落在一個撐著傘的小小身影身上。",
        "stairs_up": "{where}，一道長長的樓梯從地面伸向天空，通往{a}{n}，一個小小的身影正往上爬。",
        "sky_swim": "{where}，{a}{n}在空中游著，遠離任何水域，身後拖著一串泡泡。",
        "glow": "{where}，{a}{n}散發著溫暖的光，是身旁一個小小身影唯一的光亮。",
        "rooted": "{where}，{a}{n}向地裡扎了根，頂上還長出了枝葉。",
        "balloons": "{where}，{a}{n}被一大串五顏六色的氣球吊上了天空。",
        "moon_swap": "{where}，{a}{n}在本該是月亮的地方發著光。",
        "shadow.indoor": "{where}，{a}{n}立在那裡，但投在牆上的影子卻是{oa}{on}的形狀。",
        "shadow.outdoor": "{where}，{a}{n}立在那裡，但投下的長長影子卻是{oa}{on}的形狀。",
        "carries": "{where}，{a}{n}{moves}，背上馱著{oa}{on}。",
    },
    "zh-Hans": {
        "giant.water": "{where}，{a}像山一样{size}的{n}从水中升起，一艘小小的帆船从它脚边驶过。",
        "giant.land": "{where}，{a}像山一样{size}的{n}{posture}，一个穿大衣的小小身影抬头望着它。",
        "floating": "{where}，{a}{n}高高飘在空中，下方一个小小的身影用一根长长的绳子牵着它。",
        "upside_down": "{where}，{a}{n}{hang}倒挂下来。",
        "bubble": "{where}，{a}{n}被封在一颗玻璃泡泡里，泡泡{rests}。",
        "reflection": "{where}，{a}{n}立在一块岩石上，但水中的倒影却是{oa}{on}。",
        "world_inside.teacup": "{where}，一个大茶杯的茶水里，立着{oa}小小的{on}。",
        "world_inside.book": "{where}，一本摊开的书上，{oa}小小的{on}从书页间升起。",
        "world_inside.bathtub": "{where}，一个猫脚浴缸的水里，立着{oa}小小的{on}。",
        "world_inside.bottle": "{where}，一个塞着软木塞的玻璃瓶里，立着{oa}小小的{on}。",
        "world_inside": "{where}，{a}{n}里立着{oa}小小的{on}。",
        "rain": "{where}，{many}{n}从一片乌云中纷纷落下，落在一个撑着伞的小小身影身上。",
        "stairs_up": "{where}，一道长长的楼梯从地面伸向天空，通往{a}{n}，一个小小的身影正往上爬。",
        "sky_swim": "{where}，{a}{n}在空中游着，远离任何水域，身后拖着一串泡泡。",
        "glow": "{where}，{a}{n}散发着温暖的光，是身旁一个小小身影唯一的光亮。",
        "rooted": "{where}，{a}{n}向地里扎了根，顶上还长出了枝叶。",
        "balloons": "{where}，{a}{n}被一大串五颜六色的气球吊上了天空。",
        "moon_swap": "{where}，{a}{n}在本该是月亮的地方发着光。",
        "shadow.indoor": "{where}，{a}{n}立在那里，但投在墙上的影子却是{oa}{on}的形状。",
        "shadow.outdoor": "{where}，{a}{n}立在那里，但投下的长长影子却是{oa}{on}的形状。",
        "carries": "{where}，{a}{n}{moves}，背上驮着{oa}{on}。",
    },
}

#: The words of the twists' choices in English.
ENGLISH_CHOICES = {
    "size.big": "as big as a hill",
    "size.tall": "as tall as a hill",
    "posture.floats": "floats",
    "posture.lies": "lies",
    "posture.stands": "stands",
    "hang.ceiling": "from the ceiling",
    "hang.sky": "from the top of the sky",
    "rests.rests": "rests",
    "rests.floats": "floats",
    "moves.swims": "swims",
    "moves.wades": "wades",
    "moves.travels": "travels",
}

WORDS: dict[str, Words] = {
    "zh-Hant": Words(
        subjects={
            "lighthouse": ("座", "燈塔"),
            "house": ("間", "小房子"),
            "tower": ("座", "石塔"),
            "tree": ("棵", "圓圓的樹"),
            "mushroom": ("朵", "紅蘑菇"),
            "door": ("扇", "門"),
            "teacup": ("個", "茶杯"),
            "key": ("把", "舊鑰匙"),
            "clock": ("座", "時鐘"),
            "lantern": ("盞", "提燈"),
            "balloon": ("個", "熱氣球"),
            "staircase": ("道", "樓梯"),
            "book": ("本", "攤開的書"),
            "figure": ("個", "穿大衣的人"),
            "whale": ("頭", "鯨魚"),
            "fish": ("條", "金魚"),
            "crane": ("隻", "白鶴"),
            "boat": ("艘", "帆船"),
            "star": ("顆", "墜落的星星"),
            "umbrella": ("把", "撐開的傘"),
            "chair": ("把", "木椅"),
            "birdcage": ("個", "敞開的鳥籠"),
            "bottle": ("個", "玻璃瓶"),
            "hourglass": ("個", "沙漏"),
            "candle": ("根", "點燃的蠟燭"),
            "bicycle": ("輛", "腳踏車"),
            "kite": ("隻", "風箏"),
            "owl": ("隻", "貓頭鷹"),
            "fox": ("隻", "狐狸"),
            "rabbit": ("隻", "兔子"),
            "snail": ("隻", "蝸牛"),
            "elephant": ("頭", "大象"),
            "jellyfish": ("隻", "水母"),
            "shell": ("枚", "貝殼"),
            "feather": ("根", "羽毛"),
            "crown": ("頂", "王冠"),
            "windmill": ("座", "風車"),
            "bathtub": ("個", "貓腳浴缸"),
            "piano": ("架", "直立式鋼琴"),
        },
        settings={
            "sea": "在平靜的海面上",
            "clouds": "在高高的雲層之上",
            "forest": "在幽深的松林裡",
            "desert": "在沙丘起伏的沙漠中",
            "hills": "在連綿的山丘間",
            "mountains": "在雪山下的山谷裡",
            "snow": "在飄著雪的雪原上",
            "underwater": "在深深的海底",
            "room": "在一間有高窗的空房間裡",
            "lake": "在靜謐的湖畔",
            "rooftops": "在沉睡小鎮的屋頂之間",
        },
        moods={
            "dawn": "黎明時分",
            "day": "晴朗的天空下",
            "golden": "午後的斜陽裡",
            "dusk": "黃昏時",
            "night": "夜裡",
            "moonlit": "月光下",
            "mist": "薄霧中",
            "storm": "暴風雨的天空下",
            "aurora": "北極光下",
            "winter": "一個冬日的早晨",
            "candle": "溫暖的燈光下",
            "spring": "明媚的春日裡",
        },
        choices={
            "size.big": "大",
            "size.tall": "高",
            "posture.floats": "漂浮著",
            "posture.lies": "靜靜躺著",
            "posture.stands": "矗立著",
            "hang.ceiling": "從天花板上",
            "hang.sky": "從天空的最高處",
            "rests.rests": "靜靜地停在那裡",
            "rests.floats": "輕輕浮著",
            "moves.swims": "游著",
            "moves.wades": "涉水而行",
            "moves.travels": "緩緩前行",
        },
    ),
    "zh-Hans": Words(
        subjects={
            "lighthouse": ("座", "灯塔"),
            "house": ("间", "小房子"),
            "tower": ("座", "石塔"),
            "tree": ("棵", "圆圆的树"),
            "mushroom": ("朵", "红蘑菇"),
            "door": ("扇", "门"),
            "teacup": ("个", "茶杯"),
            "key": ("把", "旧钥匙"),
            "clock": ("座", "时钟"),
            "lantern": ("盏", "提灯"),
            "balloon": ("个", "热气球"),
            "staircase": ("道", "楼梯"),
            "book": ("本", "摊开的书"),
            "figure": ("个", "穿大衣的人"),
            "whale": ("头", "鲸鱼"),
            "fish": ("条", "金鱼"),
            "crane": ("只", "白鹤"),
            "boat": ("艘", "帆船"),
            "star": ("颗", "坠落的星星"),
            "umbrella": ("把", "撑开的伞"),
            "chair": ("把", "木椅"),
            "birdcage": ("个", "敞开的鸟笼"),
            "bottle": ("个", "玻璃瓶"),
            "hourglass": ("个", "沙漏"),
            "candle": ("根", "点燃的蜡烛"),
            "bicycle": ("辆", "自行车"),
            "kite": ("只", "风筝"),
            "owl": ("只", "猫头鹰"),
            "fox": ("只", "狐狸"),
            "rabbit": ("只", "兔子"),
            "snail": ("只", "蜗牛"),
            "elephant": ("头", "大象"),
            "jellyfish": ("只", "水母"),
            "shell": ("枚", "贝壳"),
            "feather": ("根", "羽毛"),
            "crown": ("顶", "王冠"),
            "windmill": ("座", "风车"),
            "bathtub": ("个", "猫脚浴缸"),
            "piano": ("架", "立式钢琴"),
        },
        settings={
            "sea": "在平静的海面上",
            "clouds": "在高高的云层之上",
            "forest": "在幽深的松林里",
            "desert": "在沙丘起伏的沙漠中",
            "hills": "在连绵的山丘间",
            "mountains": "在雪山下的山谷里",
            "snow": "在飘着雪的雪原上",
            "underwater": "在深深的海底",
            "room": "在一间有高窗的空房间里",
            "lake": "在静谧的湖畔",
            "rooftops": "在沉睡小镇的屋顶之间",
        },
        moods={
            "dawn": "黎明时分",
            "day": "晴朗的天空下",
            "golden": "午后的斜阳里",
            "dusk": "黄昏时",
            "night": "夜里",
            "moonlit": "月光下",
            "mist": "薄雾中",
            "storm": "暴风雨的天空下",
            "aurora": "北极光下",
            "winter": "一个冬日的早晨",
            "candle": "温暖的灯光下",
            "spring": "明媚的春日里",
        },
        choices={
            "size.big": "大",
            "size.tall": "高",
            "posture.floats": "漂浮着",
            "posture.lies": "静静躺着",
            "posture.stands": "矗立着",
            "hang.ceiling": "从天花板上",
            "hang.sky": "从天空的最高处",
            "rests.rests": "静静地停在那里",
            "rests.floats": "轻轻浮着",
            "moves.swims": "游着",
            "moves.wades": "涉水而行",
            "moves.travels": "缓缓前行",
        },
    ),
}
