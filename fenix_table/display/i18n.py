"""What the table says, in the four languages of the FENIX rulebook: en, de, fr, nl.

Two catalogues, both keyed by codes, never by English text:

* ``UI``: the screen's own words (buttons, status lines, banners' headings);
* ``REFEREE``: the referee's sentences, keyed by the explanation and game-end reason codes
  of :data:`fenix_table.rules.messages.MESSAGES` (which is the English catalogue). Every
  code there has a German, French and Dutch template here with the same ``{named}``
  placeholders; ``tests/display/test_display_i18n.py`` keeps them in step.

Parameter values that are game words ("red", "general", ...) are translated before they
are put into a template, so "the red general on c3" reads right in every language.

>>> Translator("de").ui("turn", side="red")
'Rot ist am Zug'
"""
from __future__ import annotations

import string
from typing import Iterable, Mapping, Optional

from .coach_messages import COACH
from .referee_messages import NOTICES, REFEREE

LANGUAGES = ("en", "de", "fr", "nl")
# Game words that may appear as parameter values; translated before formatting.
WORDS: dict[str, dict[str, str]] = {
    "en": {"red": "Red", "black": "Black", "soldier": "soldier", "general": "General",
           "king": "King", "soldiers": "soldiers", "generals": "Generals", "kings": "Kings",
           "official": "official", "strike": "Strike", "referee": "referee",
           "casual": "casual",
           "none": "nobody"},
    "de": {"red": "Rot", "black": "Schwarz", "soldier": "Soldat", "general": "General",
           "king": "König", "soldiers": "Soldaten", "generals": "Generäle", "kings": "Könige",
           "official": "offiziell", "strike": "Strike", "referee": "Schiedsrichter",
           "casual": "frei",
           "none": "niemand"},
    "fr": {"red": "Rouge", "black": "Noir", "soldier": "soldat", "general": "général",
           "king": "roi", "soldiers": "soldats", "generals": "généraux", "kings": "rois",
           "official": "officielles", "strike": "Strike", "referee": "arbitre",
           "casual": "libre",
           "none": "personne"},
    "nl": {"red": "Rood", "black": "Zwart", "soldier": "soldaat", "general": "generaal",
           "king": "koning", "soldiers": "soldaten", "generals": "generaals",
           "kings": "koningen", "official": "officieel", "strike": "Strike",
           "referee": "scheidsrechter", "casual": "vrij",
           "none": "niemand"},
}

UI: dict[str, dict[str, str]] = {
    "en": {
        "confirm_board": "The board is right",
        "older_game": "Older game",
        "newer_game": "Newer game",
        "close": "Close",
        "ambiguous": "Which move was it?",
        "ambiguous_hint": "The camera cannot tell these apart: touch the stack you played on (the likeliest are marked), or the move that was played",
        "ambiguous_unseen_hint": "The camera did not see where the stone went: touch the stack you played on, or the move that was played",
        "play_on_hint": "Casual game: press Play on (P) to keep the board as it is",
        "play_on": "Play on",
        "turn": "{side} to move",
        "setup": "Preparing for battle: {left} setup moves left",
        "setup_hint": "Put one soldier on another of your pieces",
        "duty_K": "King lost: put a soldier on a General to make a new King",
        "duty_G": "General lost: you may put a soldier on a soldier",
        "must_capture": "{side} must capture!",
        "capture_choices": "{count} ways to capture the most: pick one",
        "capture_one": "Follow the arrow",
        "remove": "Take off the captured stones",
        "violation": "Not allowed",
        "restore": "Put the board back as shown",
        "out_of_sync": "The board does not match the game",
        "out_of_sync_hint": "Set it up as shown, or undo",
        "camera_lost": "Camera lost",
        "camera_lost_hint": "Check the camera cable",
        "board_not_found": "Board not found",
        "board_not_found_hint": "Is the whole board in view? Try Calibrate",
        "hand": "Hand over the board",
        "searching": "Looking for the board…",
        "waiting_camera": "Waiting for the camera",
        "game_over": "Game over",
        "wins": "{side} wins",
        "draw": "Draw",
        "draw_offered": "{side} offers a draw",
        "moves": "Moves",
        "move_count": "Move {ply}",
        "last_move": "Last move: {move}",
        "computer": "Computer",
        "level": "Level",
        "computer_move": "Move my piece: {move}",
        "computer_move_hint": "The computer plays {side}: make this move on the board",
        "computer_thinking": "Thinking…",
        "computer_depth": "The computer ({side}) is searching: depth {depth}",
        "hint": "Hint",
        "hint_move": "Hint for {side}: {move}",
        "hint_thinking": "Looking for the best move…",
        "hint_depth": "The coach is searching for {side}: depth {depth}",
        "coach": "Coach",
        "coach_running": "Coach: ply {done} / {total}",
        "coach_marked": "Coach: {count} moves marked",
        "coach_none": "Coach: no move marked",
        "coach_one": "Coach: 1 move marked",
        "review_loses_material": "loses material by force",
        "review_misses_better": "misses a clearly better move",
        "review_better": "better {move} ({better} instead of {played})",
        "score_win": "win in {moves}",
        "score_loss": "loss in {moves}",
        "casual_mode": "Casual mode: moves are recorded, not refereed",
        "review": "Review: {ply} / {total}",
        "review_hint": "< > to step, Esc to leave",
        "calibrate_hint": "Touch the four grid corners: a1 first, then along rank 1",
        "calibrate_done": "Calibrated",
        "new_game": "New game",
        "undo": "Undo",
        "offer_draw": "Offer draw",
        "accept_draw": "Accept draw",
        "decline_draw": "Decline",
        "resign": "Resign",
        "calibrate": "Calibrate",
        "review_button": "Review",
        "camera": "Camera",
        "language": "Language",
        "rotate": "Rotate",
        "quit": "Quit",
        "board": "Board",
        "rules": "Rules",
        "mode": "Mode",
        "start": "Start",
        "cancel": "Cancel",
        "who_resigns": "Who resigns?",
        "clock": "{side} {time}",
        "no_games": "No saved games",
        "game_list": "Saved games",
    },
    "de": {
        "confirm_board": "Das Brett stimmt",
        "older_game": "Ältere Partie",
        "newer_game": "Neuere Partie",
        "close": "Schließen",
        "ambiguous": "Welcher Zug war es?",
        "ambiguous_hint": "Die Kamera kann diese Züge nicht unterscheiden: tippe den Stapel an, auf den du gezogen hast (die wahrscheinlichsten sind markiert), oder den gespielten Zug",
        "ambiguous_unseen_hint": "Die Kamera hat nicht gesehen, wohin der Stein kam: tippe den Stapel an, auf den du gezogen hast, oder den gespielten Zug",
        "play_on_hint": "Freies Spiel: Weiterspielen (P) übernimmt das Brett, wie es ist",
        "play_on": "Weiterspielen",
        "turn": "{side} ist am Zug",
        "setup": "Schlachtvorbereitung: noch {left} Aufbauzüge",
        "setup_hint": "Setze einen Soldaten auf eine andere eigene Figur",
        "duty_K": "König verloren: Soldat auf einen General setzen, neuer König",
        "duty_G": "General verloren: du darfst einen Soldaten auf einen Soldaten setzen",
        "must_capture": "{side} muss schlagen!",
        "capture_choices": "{count} Wege, am meisten zu schlagen: einen wählen",
        "capture_one": "Folge dem Pfeil",
        "remove": "Geschlagene Steine vom Brett nehmen",
        "violation": "Nicht erlaubt",
        "restore": "Stellt das Brett wie gezeigt zurück",
        "out_of_sync": "Das Brett passt nicht zur Partie",
        "out_of_sync_hint": "Stellt es wie gezeigt auf oder nehmt zurück",
        "camera_lost": "Kamera verloren",
        "camera_lost_hint": "Kamerakabel prüfen",
        "board_not_found": "Brett nicht gefunden",
        "board_not_found_hint": "Ist das ganze Brett im Bild? Kalibrieren versuchen",
        "hand": "Hand über dem Brett",
        "searching": "Brett wird gesucht…",
        "waiting_camera": "Warte auf die Kamera",
        "game_over": "Partie beendet",
        "wins": "{side} gewinnt",
        "draw": "Remis",
        "draw_offered": "{side} bietet Remis an",
        "moves": "Züge",
        "move_count": "Zug {ply}",
        "last_move": "Letzter Zug: {move}",
        "computer": "Computer",
        "level": "Stufe",
        "computer_move": "Zieh meine Figur: {move}",
        "computer_move_hint": "Der Computer spielt {side}: mach diesen Zug auf dem Brett",
        "computer_thinking": "Ich denke nach…",
        "computer_depth": "Der Computer ({side}) rechnet: Tiefe {depth}",
        "hint": "Tipp",
        "hint_move": "Tipp für {side}: {move}",
        "hint_thinking": "Ich suche den besten Zug…",
        "hint_depth": "Der Trainer rechnet für {side}: Tiefe {depth}",
        "coach": "Trainer",
        "coach_running": "Trainer: Halbzug {done} / {total}",
        "coach_marked": "Trainer: {count} Züge markiert",
        "coach_none": "Trainer: kein Zug markiert",
        "coach_one": "Trainer: 1 Zug markiert",
        "review_loses_material": "verliert zwangsläufig Material",
        "review_misses_better": "übersieht einen klar besseren Zug",
        "review_better": "besser {move} ({better} statt {played})",
        "score_win": "Gewinn in {moves}",
        "score_loss": "Verlust in {moves}",
        "casual_mode": "Freies Spiel: Züge werden notiert, nicht geprüft",
        "review": "Nachspielen: {ply} / {total}",
        "review_hint": "< > blättern, Esc beendet",
        "calibrate_hint": "Tippe die vier Gitterecken an: zuerst a1, dann entlang Reihe 1",
        "calibrate_done": "Kalibriert",
        "new_game": "Neue Partie",
        "undo": "Zurück",
        "offer_draw": "Remis anbieten",
        "accept_draw": "Remis annehmen",
        "decline_draw": "Ablehnen",
        "resign": "Auf\u00adgeben",
        "calibrate": "Kali\u00adbrieren",
        "review_button": "Nach\u00adspielen",
        "camera": "Kamera",
        "language": "Sprache",
        "rotate": "Drehen",
        "quit": "Beenden",
        "board": "Brett",
        "rules": "Regeln",
        "mode": "Modus",
        "start": "Starten",
        "cancel": "Abbrechen",
        "who_resigns": "Wer gibt auf?",
        "clock": "{side} {time}",
        "no_games": "Keine gespeicherten Partien",
        "game_list": "Gespeicherte Partien",
    },
    "fr": {
        "confirm_board": "Le plateau est juste",
        "older_game": "Partie précédente",
        "newer_game": "Partie suivante",
        "close": "Fermer",
        "ambiguous": "Quel coup a été joué ?",
        "ambiguous_hint": "La caméra ne peut pas les distinguer : touchez la pile où vous avez joué (les plus probables sont marquées), ou le coup joué",
        "ambiguous_unseen_hint": "La caméra n'a pas vu où la pierre est allée : touchez la pile où vous avez joué, ou le coup joué",
        "play_on_hint": "Partie libre : Continuer (P) garde le plateau tel quel",
        "play_on": "Continuer",
        "turn": "Au tour de {side}",
        "setup": "Préparation de la bataille : encore {left} coups",
        "setup_hint": "Posez un soldat sur une autre de vos pièces",
        "duty_K": "Roi perdu : posez un soldat sur un général pour refaire le roi",
        "duty_G": "Général perdu : vous pouvez poser un soldat sur un soldat",
        "must_capture": "{side} doit prendre !",
        "capture_choices": "{count} prises maximales : choisissez-en une",
        "capture_one": "Suivez la flèche",
        "remove": "Retirez les pierres prises",
        "violation": "Interdit",
        "restore": "Remettez le plateau comme indiqué",
        "out_of_sync": "Le plateau ne correspond pas à la partie",
        "out_of_sync_hint": "Replacez-le comme indiqué, ou annulez",
        "camera_lost": "Caméra perdue",
        "camera_lost_hint": "Vérifiez le câble de la caméra",
        "board_not_found": "Plateau introuvable",
        "board_not_found_hint": "Tout le plateau est-il visible ? Essayez Calibrer",
        "hand": "Main au-dessus du plateau",
        "searching": "Recherche du plateau…",
        "waiting_camera": "En attente de la caméra",
        "game_over": "Partie terminée",
        "wins": "{side} gagne",
        "draw": "Partie nulle",
        "draw_offered": "{side} propose la nulle",
        "moves": "Coups",
        "move_count": "Coup {ply}",
        "last_move": "Dernier coup : {move}",
        "computer": "Ordinateur",
        "level": "Niveau",
        "computer_move": "Jouez ma pièce : {move}",
        "computer_move_hint": "L'ordinateur joue {side} : faites ce coup sur le plateau",
        "computer_thinking": "Je réfléchis…",
        "computer_depth": "L'ordinateur ({side}) cherche : profondeur {depth}",
        "hint": "Conseil",
        "hint_move": "Conseil pour {side} : {move}",
        "hint_thinking": "Je cherche le meilleur coup…",
        "hint_depth": "Le coach cherche pour {side} : profondeur {depth}",
        "coach": "Coach",
        "coach_running": "Coach : demi-coup {done} / {total}",
        "coach_marked": "Coach : {count} coups marqués",
        "coach_none": "Coach : aucun coup marqué",
        "coach_one": "Coach : 1 coup marqué",
        "review_loses_material": "perd du matériel de force",
        "review_misses_better": "manque un coup nettement meilleur",
        "review_better": "mieux : {move} ({better} au lieu de {played})",
        "score_win": "gain en {moves}",
        "score_loss": "perte en {moves}",
        "casual_mode": "Partie libre : coups notés, non arbitrés",
        "review": "Relecture : {ply} / {total}",
        "review_hint": "< > pour avancer, Échap pour quitter",
        "calibrate_hint": "Touchez les quatre coins de la grille : a1 d'abord, puis la rangée 1",
        "calibrate_done": "Calibré",
        "new_game": "Nouvelle partie",
        "undo": "Annuler",
        "offer_draw": "Proposer nulle",
        "accept_draw": "Accepter nulle",
        "decline_draw": "Refuser",
        "resign": "Aban\u00addonner",
        "calibrate": "Calibrer",
        "review_button": "Revoir",
        "camera": "Caméra",
        "language": "Langue",
        "rotate": "Pivoter",
        "quit": "Quitter",
        "board": "Plateau",
        "rules": "Règles",
        "mode": "Mode",
        "start": "Commencer",
        "cancel": "Annuler",
        "who_resigns": "Qui abandonne ?",
        "clock": "{side} {time}",
        "no_games": "Aucune partie enregistrée",
        "game_list": "Parties enregistrées",
    },
    "nl": {
        "confirm_board": "Het bord klopt",
        "older_game": "Oudere partij",
        "newer_game": "Nieuwere partij",
        "close": "Sluiten",
        "ambiguous": "Welke zet was het?",
        "ambiguous_hint": "De camera kan deze niet onderscheiden: tik de stapel aan waarop je speelde (de waarschijnlijkste zijn gemarkeerd), of de gespeelde zet",
        "ambiguous_unseen_hint": "De camera zag niet waar de steen heen ging: tik de stapel aan waarop je speelde, of de gespeelde zet",
        "play_on_hint": "Vrij spel: Verder spelen (P) neemt het bord over zoals het is",
        "play_on": "Verder spelen",
        "turn": "{side} is aan zet",
        "setup": "Voorbereiding op de strijd: nog {left} opstelzetten",
        "setup_hint": "Zet een soldaat op een ander eigen stuk",
        "duty_K": "Koning verloren: zet een soldaat op een generaal voor een nieuwe koning",
        "duty_G": "Generaal verloren: je mag een soldaat op een soldaat zetten",
        "must_capture": "{side} moet slaan!",
        "capture_choices": "{count} manieren om het meest te slaan: kies er een",
        "capture_one": "Volg de pijl",
        "remove": "Neem de geslagen stenen van het bord",
        "violation": "Niet toegestaan",
        "restore": "Zet het bord terug zoals getoond",
        "out_of_sync": "Het bord klopt niet met de partij",
        "out_of_sync_hint": "Zet het op zoals getoond, of neem terug",
        "camera_lost": "Camera verloren",
        "camera_lost_hint": "Controleer de camerakabel",
        "board_not_found": "Bord niet gevonden",
        "board_not_found_hint": "Staat het hele bord in beeld? Probeer Kalibreren",
        "hand": "Hand boven het bord",
        "searching": "Bord wordt gezocht…",
        "waiting_camera": "Wachten op de camera",
        "game_over": "Partij afgelopen",
        "wins": "{side} wint",
        "draw": "Remise",
        "draw_offered": "{side} biedt remise aan",
        "moves": "Zetten",
        "move_count": "Zet {ply}",
        "last_move": "Laatste zet: {move}",
        "computer": "Computer",
        "level": "Niveau",
        "computer_move": "Zet mijn stuk: {move}",
        "computer_move_hint": "De computer speelt {side}: doe deze zet op het bord",
        "computer_thinking": "Ik denk na…",
        "computer_depth": "De computer ({side}) rekent: diepte {depth}",
        "hint": "Tip",
        "hint_move": "Tip voor {side}: {move}",
        "hint_thinking": "Ik zoek de beste zet…",
        "hint_depth": "De coach rekent voor {side}: diepte {depth}",
        "coach": "Coach",
        "coach_running": "Coach: halve zet {done} / {total}",
        "coach_marked": "Coach: {count} zetten gemarkeerd",
        "coach_none": "Coach: geen zet gemarkeerd",
        "coach_one": "Coach: 1 zet gemarkeerd",
        "review_loses_material": "verliest gedwongen materiaal",
        "review_misses_better": "mist een duidelijk betere zet",
        "review_better": "beter {move} ({better} in plaats van {played})",
        "score_win": "winst in {moves}",
        "score_loss": "verlies in {moves}",
        "casual_mode": "Vrij spel: zetten worden genoteerd, niet gecontroleerd",
        "review": "Naspelen: {ply} / {total}",
        "review_hint": "< > bladeren, Esc stopt",
        "calibrate_hint": "Tik de vier rasterhoeken aan: eerst a1, dan langs rij 1",
        "calibrate_done": "Gekalibreerd",
        "new_game": "Nieuwe partij",
        "undo": "Terug",
        "offer_draw": "Remise aanbieden",
        "accept_draw": "Remise aannemen",
        "decline_draw": "Weigeren",
        "resign": "Opgeven",
        "calibrate": "Kali\u00adbreren",
        "review_button": "Naspelen",
        "camera": "Camera",
        "language": "Taal",
        "rotate": "Draaien",
        "quit": "Stoppen",
        "board": "Bord",
        "rules": "Regels",
        "mode": "Modus",
        "start": "Starten",
        "cancel": "Annuleren",
        "who_resigns": "Wie geeft op?",
        "clock": "{side} {time}",
        "no_games": "Geen opgeslagen partijen",
        "game_list": "Opgeslagen partijen",
    },
}

def placeholders(template: str) -> set[str]:
    """The ``{named}`` fields of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def english_referee() -> Mapping[str, str]:
    """The rules engine's English catalogue (code -> template)."""
    from fenix_table.rules.messages import MESSAGES
    return MESSAGES


class Translator:
    """Renders UI keys and referee codes in one language.

    ``language`` is one of :data:`LANGUAGES`; anything else raises ``ValueError`` naming the
    choices (the configuration loader turns that into a ConfigError).
    """

    def __init__(self, language: str = "en") -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r} (choose {', '.join(LANGUAGES)})")
        self.language = language

    def word(self, value: str) -> str:
        return WORDS[self.language].get(value, value)

    def _params(self, params: Mapping[str, object]) -> dict[str, str]:
        return {k: self.word(v) if isinstance(v, str) else str(v) for k, v in params.items()}

    def ui(self, key: str, **params: object) -> str:
        template = UI[self.language].get(key) or UI["en"][key]
        return template.format(**self._params(params))

    def referee(self, code: str, params: Mapping[str, object] | Iterable = (),
                fallback: Optional[str] = None) -> str:
        """The referee's sentence for ``code``; ``params`` as a dict or (name, value) pairs.

        An unknown code (a newer engine than this catalogue) falls back to the English
        text the event carried, so the players always read something true.
        """
        values = self._params(dict(params))
        if self.language == "en":
            template = english_referee().get(code)
        else:
            template = REFEREE[self.language].get(code)
        if template is None:
            return fallback if fallback is not None else code
        try:
            return template.format(**values)
        except (KeyError, IndexError):
            return fallback if fallback is not None else template

    def coach(self, reason) -> str:
        """The coach's reason (:class:`fenix_table.opponent.coach.Reason`) in this
        language."""
        if self.language == "en":
            return reason.text
        values = self._params(dict(reason.params))
        return "".join(COACH[self.language][code].format(**values)
                       for code in (reason.code,) + tuple(reason.extras))

    def score(self, score: int) -> str:
        """A search score for people: ``+1.5`` stones, or a win or loss in n moves."""
        from fenix_table.opponent.search import WIN, WIN_BOUND
        if score >= WIN_BOUND:
            return self.ui("score_win", moves=(WIN - score + 1) // 2)
        if score <= -WIN_BOUND:
            return self.ui("score_loss", moves=(WIN + score + 1) // 2)
        return f"{score / 100:+.1f}"

    def notice(self, code: str, cells=(), fallback: Optional[str] = None) -> str:
        """A referee notice by code (``{cells}`` filled in); unknown codes fall back to the
        English message the event carried."""
        template = NOTICES[self.language].get(code)
        if template is None:
            return fallback if fallback is not None else code
        return template.format(cells=", ".join(cells))
