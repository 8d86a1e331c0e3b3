# Cards are small ints: suit * 16 + rank, so a hand fits in a bytearray.
#   standard deck: suits 0..3 = clubs, diamonds, hearts, spades; ranks 1..13 (A=1 .. K=13)
#   jokers:        0x40 and 0x41 (suit 4)
#   Speed Run:     suits 0..3 = earthworms, raccoons, geckos, gorillas; ranks 1..10
# The card level's own (decks, names, what fits a centre pile): the referee
# app never imports it, so it stays off the board (speedref-flash card_level).
from micropython import const

JOKER = const(0x40)
STD_SUITS = "CDHS"
RUN_SUITS = "ERGW"  # Earthworms, Raccoons, Geckos, goRillas -> W for the Gorillas
_RANKS = "A23456789TJQK"


def card(suit, rank):
    return suit * 16 + rank


def suit(c):
    return c >> 4


def rank(c):
    return c & 15


def is_joker(c):
    return c >= JOKER


def standard_deck(jokers=0):
    """52 cards (A..K in four suits), plus `jokers` jokers (0..2), as a bytearray."""
    d = bytearray()
    for s in range(4):
        for r in range(1, 14):
            d.append(s * 16 + r)
    for j in range(jokers):
        d.append(JOKER + j)
    return d


def run_deck():
    """Speed Run's 40 cards: four suits of 1..10."""
    d = bytearray()
    for s in range(4):
        for r in range(1, 11):
            d.append(s * 16 + r)
    return d


# A card in a hand or pile (a bytearray): MicroPython's bytearray has no
# find and `int in bytearray` raises NotImplementedError, so these loop.
def index(b, c):
    """Position of card c in bytearray b, or -1."""
    for i in range(len(b)):
        if b[i] == c:
            return i
    return -1


def has(b, c):
    """Is card c in bytearray b?"""
    return index(b, c) >= 0


# The games played on centre piles (Speed, Spit): a card goes on a top card
# one rank above or below it, round the corner (SP-7, SPIT-5) ...
def fits(card, top, doubles=False):
    """SP-7 (+-1 round the corner), SP-8 (doubles), SP-9 (jokers wild)."""
    if is_joker(card) or is_joker(top):
        return True
    d = (rank(card) - rank(top)) % 13
    return d == 1 or d == 12 or (doubles and d == 0)


# ... and two cards on one pile less than this apart landed at the same
# instant: nobody reacts to a new top card faster (SP-13, SPIT-7).  Not a
# tunable: the rules' own time stays with the rules (and the card level
# never goes to a board).
RACE_US = 150000


def name(c):
    """Standard-deck name for transcripts: 'AS', 'TD', '7H', 'JK' (ASCII only)."""
    if c >= JOKER:
        return "JK"
    return _RANKS[(c & 15) - 1] + STD_SUITS[c >> 4]


def run_name(c):
    """Speed Run card name: suit letter then rank, 'E7', 'W10'."""
    return RUN_SUITS[c >> 4] + str(c & 15)
