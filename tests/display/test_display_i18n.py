"""The catalogues stay in step with the engine's codes, in all four languages."""
import pytest

from fenix_table.display.i18n import LANGUAGES, UI, WORDS, Translator, placeholders
from fenix_table.display.referee_messages import NOTICES, REFEREE
from fenix_table.rules import MESSAGES, Position, Rules, explain


@pytest.mark.parametrize("language", ["de", "fr", "nl"])
def test_every_referee_code_has_a_translation_with_the_same_placeholders(language):
    catalogue = REFEREE[language]
    assert set(catalogue) == set(MESSAGES), set(MESSAGES) ^ set(catalogue)
    for code, english in MESSAGES.items():
        assert placeholders(catalogue[code]) == placeholders(english), (language, code)


@pytest.mark.parametrize("language", LANGUAGES)
def test_ui_and_notice_catalogues_have_the_same_keys_and_fields(language):
    assert set(UI[language]) == set(UI["en"])
    for key, template in UI["en"].items():
        assert placeholders(UI[language][key]) == placeholders(template), (language, key)
    assert set(NOTICES[language]) == set(NOTICES["en"])
    assert set(WORDS[language]) == set(WORDS["en"])


def test_a_real_explanation_reads_in_every_language_with_game_words_translated():
    # Black to move must capture; Black moves a soldier elsewhere instead.
    position = Position.from_fpn("7x8 k6/7/7/7/7/2s4/2S4/G5K b 55 - 3")
    explanation = explain(position, "c3-d3", Rules.preset("official"))
    assert explanation.code == "capture_compulsory"
    texts = {lang: Translator(lang).referee(explanation.code, explanation.params)
             for lang in LANGUAGES}
    assert texts["en"] == explanation.text
    assert texts["de"].startswith("Schlagen ist Pflicht: c3xc1")
    assert "c3xc1" in texts["fr"] and "c3xc1" in texts["nl"]
    # Side names are translated before they are put into a sentence.
    assert Translator("de").ui("turn", side="black") == "Schwarz ist am Zug"
    assert Translator("nl").ui("must_capture", side="red") == "Rood moet slaan!"


def test_unknown_codes_fall_back_to_the_events_english_text():
    tr = Translator("fr")
    assert tr.referee("a_code_from_a_newer_engine", {}, fallback="as sent") == "as sent"
    assert tr.notice("route_unseen", ("c3",), fallback="the route") == "the route"
    assert tr.notice("height_mismatch", ("c3", "d4")).endswith("c3, d4")
    with pytest.raises(ValueError, match="choose en, de, fr, nl"):
        Translator("es")
