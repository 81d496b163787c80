"""BERT WordPiece tokenization (uncased by default) and a vocabulary built from a corpus.

Reads and writes the standard BERT `vocab.txt` (one token per line, line number = id).
"""

import collections
import unicodedata

from ..errors import DataError

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B81F
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def basic_tokenize(text, lower_case=True):
    """Whitespace and punctuation split, accents stripped when lower-casing (BERT's BasicTokenizer)."""
    cleaned = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_cjk(cp):
            cleaned.append(f" {ch} ")
        else:
            cleaned.append(" " if _is_whitespace(ch) else ch)
    words = []
    for word in "".join(cleaned).split():
        if lower_case:
            word = unicodedata.normalize("NFD", word.lower())
            word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = []
        for ch in word:
            if _is_punctuation(ch):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(ch)
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
    return words


class WordPieceTokenizer:
    def __init__(self, vocab, lower_case=True, max_chars_per_word=100):
        self.vocab = vocab  # token -> id
        self.inv_vocab = {i: t for t, i in vocab.items()}
        self.lower_case = lower_case
        self.max_chars = max_chars_per_word
        for token in ("[UNK]", "[CLS]", "[SEP]", "[MASK]", "[PAD]"):
            if token not in vocab:
                raise DataError(f"vocabulary lacks the special token {token}; a BERT vocab.txt has "
                                "[PAD], [UNK], [CLS], [SEP] and [MASK]")
        self.special_ids = {vocab[t] for t in vocab if t.startswith("[") and t.endswith("]")}

    def wordpiece(self, word):
        if len(word) > self.max_chars:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            piece = None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in self.vocab:
                    piece = sub
                    break
                end -= 1
            if piece is None:
                return ["[UNK]"]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text):
        out = []
        for word in basic_tokenize(text, self.lower_case):
            out.extend(self.wordpiece(word))
        return out

    def ids(self, tokens):
        return [self.vocab[t] for t in tokens]


def _vocab_tokens(path):
    """The lines of a vocab.txt (line number = id), or a DataError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            tokens = [line.rstrip("\n") for line in f]
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"vocabulary {path}: cannot be read ({e}); give a UTF-8 BERT vocab.txt") from None
    if not tokens:
        raise DataError(f"vocabulary {path}: empty; give a BERT vocab.txt (one token per line)")
    return tokens


def load_vocab(path):
    vocab = collections.OrderedDict()
    for index, token in enumerate(_vocab_tokens(path)):
        if token in vocab:
            continue  # a few published vocabularies repeat a token; the first id wins
        vocab[token] = index
    return vocab


def vocab_size_of(path):
    return len(_vocab_tokens(path))


def write_vocab(tokens, path):
    with open(path, "w", encoding="utf-8") as f:
        for token in tokens:
            f.write(token + "\n")


def build_vocab(texts, size, lower_case=True, min_count=2):
    """Special tokens, every character seen (alone and as ##continuation), then the most
    frequent whole words and word endings until `size` tokens: nothing in the corpus is [UNK]."""
    words = collections.Counter()
    for text in texts:
        words.update(basic_tokenize(text, lower_case))
    chars = collections.Counter()
    endings = collections.Counter()
    for word, count in words.items():
        for i, ch in enumerate(word):
            chars[ch if i == 0 else "##" + ch] += count
        for cut in range(2, len(word) - 1):
            if len(word) - cut >= 2:
                endings["##" + word[cut:]] += count
    tokens = list(SPECIAL_TOKENS)
    seen = set(tokens)
    for token, _ in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0])):
        if token not in seen:
            tokens.append(token)
            seen.add(token)
    # Whole words first (they cover most text), then common endings to split rare words well.
    word_budget = max(0, (size - len(tokens)) * 3 // 4)
    for token, count in sorted(words.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(tokens) >= len(SPECIAL_TOKENS) + len(chars) + word_budget or count < min_count:
            break
        if token not in seen and len(token) > 1:
            tokens.append(token)
            seen.add(token)
    for token, count in sorted(endings.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(tokens) >= size or count < min_count:
            break
        if token not in seen:
            tokens.append(token)
            seen.add(token)
    return tokens
