"""The language a person's words are in (en, de, es, tr), read from the words alone: the one recogniser behind
every line Sentinel writes in a turn's language (``answer.intent.turn_language``) and behind the label a saved
note's record line carries (``vault.record_line``), whichever path saved it (the pipeline's save, the model's own
call of the save tool through the tool API, the chat's ``/save``). It sits with the vault's text because a note
is written in it; it reads words, never a model.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_SAVE_LANGUAGE = re.compile(
    r"(?P<de>\b(?:speicher\w*|notier\w*|merk\w*\s+dir|halt\w*\s+fest|behalt\w*|bitte|kannst|könntest)\b)"
    r"|(?P<es>\b(?:guarda\w*|guardá|anota\w*|apunta\w*|recuerda\w*|graba\w*|por\s+favor|puedes|podrías)\b)"
    r"|(?P<tr>\b(?:kaydet\w*|kayded\w*|not\s+al\w*|not\s+et\w*|sakla\w*|hatırla|bunu|şunu|lütfen)\b)",
    _I,
)


def save_language(text: str) -> str:
    """The language of a save request, by the verb it uses (en, de, es, tr; en when none of the others')."""
    match = _SAVE_LANGUAGE.search(text)
    return next((k for k, v in match.groupdict().items() if v), "en") if match else "en"


# What a question's own words show of its language, written from the four languages' grammar: their
# function and question words, and letters only one of them writes (ö and ü are German and Turkish both).
_QUESTION_WORDS = {
    "en": "the is are was and of to a an in on that it with for you this what how which when where who why does "
    "do did can my i",
    "de": "der die das den dem des und ist sind ein eine einen nicht mit zu sie du von ich wie was wo wann warum "
    "welche welcher welches welchem welchen wieso kann werden wird mein meine meinen für über unter bei auch im",
    "es": "el la los las es son de que qué y un una para con del por cómo como cuál cuáles cuándo dónde cuánto "
    "cuántos cuántas mi mis se puedo hay al",
    "tr": "bir ve bu için ile olarak da de çok daha gibi veya her şu kaç ne nedir nasıl hangi neden nerede mi mı "
    "mu mü peki var yok ise",
}
_QUESTION_VOCABULARY = {language: frozenset(words.split()) for language, words in _QUESTION_WORDS.items()}
_OWN_LETTERS = {"de": re.compile("[äß]", _I), "es": re.compile("[ñ¿¡áéíóú]", _I), "tr": re.compile("[şğı]")}
_LETTER_WEIGHT = 2  # a letter only one language writes says more than a word two of them share
_TURN_WORD = re.compile(r"[^\W\d_]+")


def question_language(text: str) -> str:
    """The language a question's words show (en, de, es, tr), or "" when none leads."""
    words = [word.casefold() for word in _TURN_WORD.findall(text)]
    scores = {
        language: sum(word in vocabulary for word in words) for language, vocabulary in _QUESTION_VOCABULARY.items()
    }
    for language, letters in _OWN_LETTERS.items():
        scores[language] += _LETTER_WEIGHT * bool(letters.search(text))
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] == ranked[1]:
        return ""
    return max(scores, key=lambda language: scores[language])


def request_language(text: str) -> str:
    """The language of a request to save: its verb's ("bunu kaydet", "guarda esto"), else what its words show
    (a model that called the save tool after "Kannst du mir das merken?" or a plain question), else English."""
    if _SAVE_LANGUAGE.search(text):
        return save_language(text)
    return question_language(text) or "en"
