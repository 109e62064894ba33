"""The system message of a model's move — the game and its mode's rules in brief — in the
table's language (``en``, ``zh-Hant``, ``zh-Hans``; another: English).

The user message (the seat's situation and the question) stays English in every language: its
JSON keys are the protocol's, and models follow English instructions best. What the table's
language changes besides the rules is the language the clues are asked in.
"""

from __future__ import annotations

#: The game in brief: (shown the descriptions, shown the pictures).
GAME = {
    "en": (
        "You are playing Dixit, the storytelling card game, at a digital table. The cards are dreamlike "
        "pictures; you are given each picture's title and description instead of the picture. Each round one "
        "player, the storyteller, gives a clue for a card of their hand; the others each add a card of their own "
        "that fits the clue; the cards are shuffled onto numbered slots, and the players vote for the card they "
        "think is the storyteller's.",
        "You are playing Dixit, the storytelling card game, at a digital table. The cards are dreamlike "
        "pictures, shown to you as images, each after its number. Each round one player, the storyteller, gives "
        "a clue for a card of their hand; the others each add a card of their own that fits the clue; the cards "
        "are shuffled onto numbered slots, and the players vote for the card they think is the storyteller's.",
    ),
    "zh-Hant": (
        "你正在數位桌上玩《妙語說書人》(Dixit)。卡牌是夢幻般的圖畫;你看到的是每張圖的標題與描述,而不是圖本身。"
        "每一輪由一位說書人為自己手牌中的一張卡給出提示;其他玩家各從手牌中放出一張符合提示的卡;"
        "卡牌洗混後放到編號的位置上,玩家投票猜哪一張是說書人的卡。",
        "你正在數位桌上玩《妙語說書人》(Dixit)。卡牌是夢幻般的圖畫,以圖片給你看,每張圖前面有它的編號。"
        "每一輪由一位說書人為自己手牌中的一張卡給出提示;其他玩家各從手牌中放出一張符合提示的卡;"
        "卡牌洗混後放到編號的位置上,玩家投票猜哪一張是說書人的卡。",
    ),
    "zh-Hans": (
        "你正在数字桌上玩《只言片语》(Dixit)。卡牌是梦幻般的图画;你看到的是每张图的标题与描述,而不是图本身。"
        "每一轮由一位讲述者为自己手牌中的一张卡给出提示;其他玩家各从手牌中放出一张符合提示的卡;"
        "卡牌洗混后放到编号的位置上,玩家投票猜哪一张是讲述者的卡。",
        "你正在数字桌上玩《只言片语》(Dixit)。卡牌是梦幻般的图画,以图片给你看,每张图前面有它的编号。"
        "每一轮由一位讲述者为自己手牌中的一张卡给出提示;其他玩家各从手牌中放出一张符合提示的卡;"
        "卡牌洗混后放到编号的位置上,玩家投票猜哪一张是讲述者的卡。",
    ),
}

RULES = {
    "en": {
        "odyssey": (
            "Scoring: if some but not all voters find the storyteller's card, the storyteller and each finder "
            "score 3; if all or none find it, the storyteller scores 0 and everyone else 2. Each other player "
            "also scores 1 per vote on their card (at most 3). So a clue should be neither too plain nor too "
            "obscure. The storyteller does not vote; nobody votes for their own card. With 7 or more players "
            "each voter has a second, optional token for a different slot. First to 30 points wins."
        ),
        "classic": (
            "Scoring: if some but not all voters find the storyteller's card, the storyteller and each finder "
            "score 3; if all or none find it, the storyteller scores 0 and everyone else 2. Each other player "
            "also scores 1 per vote on their card. So a clue should be neither too plain nor too obscure. The "
            "storyteller does not vote; nobody votes for their own card. First to 30 points wins."
        ),
        "party": (
            "Party rules: the storyteller gives the clue before seeing their hand; then everyone, the storyteller "
            "included, plays a card, and everyone votes for the image that best fits the clue (your own card is "
            "allowed). A voter whose image got c votes scores c (at most 5), but 0 if c is 1, and 0 if the "
            "storyteller put the red token on that image. So vote for the image most others will choose."
        ),
        "teams": (
            "Team rules: players are in pairs. The storyteller's teammate plays a card; every other team plays one "
            "card and its other member votes. The storyteller's team scores 3 if some but not all voters find the "
            "card; every other team scores 2 if all or none found it, else 3 if its voter found it; every team "
            "also scores 1 per vote on its card (at most 3). Highest team score wins."
        ),
    },
    "zh-Hant": {
        "odyssey": (
            "計分:若有人但不是所有人找到說書人的卡,說書人和每位找到的人得 3 分;若所有人或沒有人找到,"
            "說書人得 0 分,其他人各得 2 分。此外,說書人以外的玩家,自己的卡每得一票再得 1 分(最多 3 分)。"
            "所以提示不宜太明白,也不宜太隱晦。說書人不投票;不能投自己的卡。7 人以上時,每位投票者另有一枚"
            "可選的第二枚籤,投在不同的位置。先到 30 分者獲勝。"
        ),
        "classic": (
            "計分:若有人但不是所有人找到說書人的卡,說書人和每位找到的人得 3 分;若所有人或沒有人找到,"
            "說書人得 0 分,其他人各得 2 分。此外,說書人以外的玩家,自己的卡每得一票再得 1 分。"
            "所以提示不宜太明白,也不宜太隱晦。說書人不投票;不能投自己的卡。先到 30 分者獲勝。"
        ),
        "party": (
            "派對規則:說書人在看手牌之前就給出提示;然後所有人(包括說書人)各放一張卡,所有人投票給最符合提示的圖"
            "(可以投自己的卡)。投給得 c 票的圖的人得 c 分(最多 5 分),但 c 為 1 時得 0 分,"
            "說書人放了紅色籤的圖也得 0 分。所以要投給大多數人會選的圖。"
        ),
        "teams": (
            "團隊規則:玩家兩人一隊。說書人的隊友放一張卡;其他每隊放一張卡,由另一位隊員投票。"
            "若有人但不是所有人找到說書人的卡,說書人的隊伍得 3 分;其他隊伍在所有人或沒有人找到時得 2 分,"
            "否則其投票者找到時得 3 分;每隊的卡每得一票再得 1 分(最多 3 分)。總分最高的隊伍獲勝。"
        ),
    },
    "zh-Hans": {
        "odyssey": (
            "计分:若有人但不是所有人找到讲述者的卡,讲述者和每位找到的人得 3 分;若所有人或没有人找到,"
            "讲述者得 0 分,其他人各得 2 分。此外,讲述者以外的玩家,自己的卡每得一票再得 1 分(最多 3 分)。"
            "所以提示不宜太直白,也不宜太隐晦。讲述者不投票;不能投自己的卡。7 人以上时,每位投票者另有一枚"
            "可选的第二枚票,投在不同的位置。先到 30 分者获胜。"
        ),
        "classic": (
            "计分:若有人但不是所有人找到讲述者的卡,讲述者和每位找到的人得 3 分;若所有人或没有人找到,"
            "讲述者得 0 分,其他人各得 2 分。此外,讲述者以外的玩家,自己的卡每得一票再得 1 分。"
            "所以提示不宜太直白,也不宜太隐晦。讲述者不投票;不能投自己的卡。先到 30 分者获胜。"
        ),
        "party": (
            "派对规则:讲述者在看手牌之前就给出提示;然后所有人(包括讲述者)各放一张卡,所有人投票给最符合提示的图"
            "(可以投自己的卡)。投给得 c 票的图的人得 c 分(最多 5 分),但 c 为 1 时得 0 分,"
            "讲述者放了红色票的图也得 0 分。所以要投给大多数人会选的图。"
        ),
        "teams": (
            "团队规则:玩家两人一队。讲述者的队友放一张卡;其他每队放一张卡,由另一位队员投票。"
            "若有人但不是所有人找到讲述者的卡,讲述者的队伍得 3 分;其他队伍在所有人或没有人找到时得 2 分,"
            "否则其投票者找到时得 3 分;每队的卡每得一票再得 1 分(最多 3 分)。总分最高的队伍获胜。"
        ),
    },
}

#: The last lines: the format, and (in Chinese) the language of the clues.
ANSWER = {
    "en": "Answer in the exact format asked, with no other text.",
    "zh-Hant": "請嚴格依照要求的格式回答,不要加其他文字。提示請用繁體中文。",
    "zh-Hans": "请严格按照要求的格式回答,不要加其他文字。提示请用简体中文。",
}


def system_message(mode: str, language: str = "en", *, pictures: bool = False) -> str:
    """The system message for ``mode`` in ``language``; ``pictures``: the model is shown the cards."""
    language = language if language in GAME else "en"
    rules = RULES[language]
    return f"{GAME[language][pictures]}\n{rules.get(mode, rules['odyssey'])}\n{ANSWER[language]}"
