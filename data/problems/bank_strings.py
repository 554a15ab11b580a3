"""String problems of the problem bank (checked by data/problems/bank_check.py)."""
PROBLEMS = [
    dict(split="train", difficulty="easy", task=r"""returns the initials of the whitespace-separated words of `name`: the first letter of each word in upper case, each followed by a dot (an empty or blank `name` gives "").""", ref=r"""
def initials(name: str) -> str:
    return "".join(w[0].upper() + "." for w in name.split())
""", cases=[(["grace brewster hopper"], "G.B.H."), (["Ada"], "A."), ([""], ""), (["  alan   turing "], "A.T."), (["x Y z"], "X.Y.Z.")]),
    dict(split="train", difficulty="medium", task=r"""converts a non-negative number of `seconds` into the form "HH:MM:SS", each part with at least two digits (padded with a leading zero; the hours may have more than two digits).""", ref=r"""
def format_time(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h:02d}:{m:02d}:{s:02d}"
""", cases=[([3725], "01:02:05"), ([0], "00:00:00"), ([59], "00:00:59"), ([60], "00:01:00"), ([3599], "00:59:59"), ([3600], "01:00:00"), ([360000], "100:00:00"), ([86399], "23:59:59")]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with every character except the last four replaced by "#" (a string of four or fewer characters is returned unchanged).""", ref=r"""
def mask_card(s: str) -> str:
    return "#" * (len(s) - 4) + s[-4:]
""", cases=[(["4556364607935616"], "############5616"), (["1234"], "1234"), (["abc"], "abc"), (["12345"], "#2345"), ([""], ""), (["Skippy"], "##ippy")]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with every character written twice in a row.""", ref=r"""
def double_chars(s: str) -> str:
    return "".join(c * 2 for c in s)
""", cases=[(["abc"], "aabbcc"), ([""], ""), (["a b"], "aa  bb"), (["!1"], "!!11"), (["zz"], "zzzz")]),
    dict(split="train", difficulty="hard", task=r"""splits the arithmetic expression `expr` into tokens and returns them as a list of strings: every longest run of digits is one number token, each of the characters + - * / ( ) is a token of its own, and spaces are skipped.""", ref=r"""
def tokenize_arith(expr: str) -> list[str]:
    tokens, num = [], ""
    for c in expr:
        if c.isdigit():
            num += c
            continue
        if num:
            tokens.append(num)
            num = ""
        if c != " ":
            tokens.append(c)
    if num:
        tokens.append(num)
    return tokens
""", cases=[(["12+3*(45 - 6)"], ["12", "+", "3", "*", "(", "45", "-", "6", ")"]), ([""], []), (["7"], ["7"]), (["  1 2 "], ["1", "2"]), (["(10/2)"], ["(", "10", "/", "2", ")"]), (["3 -4"], ["3", "-", "4"])]),
    dict(split="train", difficulty="medium", task=r"""returns the non-negative integer `n` followed by its English ordinal suffix: "st", "nd" or "rd" when its last digit is 1, 2 or 3 and "th" otherwise, except that the suffix is always "th" when the last two digits are 11, 12 or 13.""", ref=r"""
def ordinal_suffix(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
""", cases=[([22], "22nd"), ([1], "1st"), ([2], "2nd"), ([3], "3rd"), ([4], "4th"), ([11], "11th"), ([12], "12th"), ([13], "13th"), ([21], "21st"), ([23], "23rd"), ([101], "101st"), ([111], "111th"), ([0], "0th"), ([112], "112th"), ([1001], "1001st")]),
    dict(split="train", difficulty="medium", task=r"""decodes the run-length string `s`, made of characters that are not digits, each followed by a positive count of one or more digits (such as "a3b12"), into the characters repeated that many times.""", ref=r"""
def run_length_decode(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        j = i + 1
        while j < len(s) and s[j].isdigit():
            j += 1
        out.append(s[i] * int(s[i + 1 : j]))
        i = j
    return "".join(out)
""", cases=[(["a3b2"], "aaabb"), ([""], ""), (["x1"], "x"), (["a12"], "aaaaaaaaaaaa"), (["a1b1c1"], "abc"), (["z2y10"], "zzyyyyyyyyyy"), ([" 3!2"], "   !!")],
         survivors=["line 5: value -> 2"]),
    dict(split="train", difficulty="easy", task=r"""returns the list of the character codes (Unicode code points, as given by `ord`) of the characters of `s`, in order.""", ref=r"""
def char_codes(s: str) -> list[int]:
    return [ord(c) for c in s]
""", cases=[(["Hi!"], [72, 105, 33]), ([""], []), (["a"], [97]), (["0 9"], [48, 32, 57]), (["Zz"], [90, 122])]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with `suffix` removed from its end if `s` ends with it, and `s` unchanged otherwise (an empty `suffix` changes nothing).""", ref=r"""
def strip_suffix(s: str, suffix: str) -> str:
    if suffix and s.endswith(suffix):
        return s[: -len(suffix)]
    return s
""", cases=[(["report.txt", ".txt"], "report"), (["report.txt", ".csv"], "report.txt"), (["abc", ""], "abc"), (["abc", "abc"], ""), (["ab", "abc"], "ab"), (["aaa", "a"], "aa")]),
    dict(split="train", difficulty="easy", task=r"""returns the whitespace-separated words of `s` in reverse order, joined by single spaces.""", ref=r"""
def reverse_words(s: str) -> str:
    return " ".join(s.split()[::-1])
""", cases=[(["the sky is blue"], "blue is sky the"), ([""], ""), (["  hello   world  "], "world hello"), (["one"], "one"), (["a b c d e"], "e d c b a")]),
    dict(split="train", difficulty="medium", task=r"""applies the Atbash cipher to `s`: every letter is replaced by the letter at the same position counted from the other end of the alphabet (a <-> z, b <-> y, c <-> x, ...), keeping its case; other characters are unchanged.""", ref=r"""
def atbash(s: str) -> str:
    import string
    lo, up = string.ascii_lowercase, string.ascii_uppercase
    return s.translate(str.maketrans(lo + up, lo[::-1] + up[::-1]))
""", cases=[(["Hello, World!"], "Svool, Dliow!"), ([""], ""), (["abc xyz"], "zyx cba"), (["ABC"], "ZYX"), (["m n 42"], "n m 42")]),
    dict(split="train", difficulty="hard", task=r"""wraps the whitespace-separated words of `text` into lines of at most `width` characters and returns the list of lines: each line is filled greedily with as many words as fit, separated by single spaces, and a word longer than `width` goes on a line of its own ([] if there are no words).""", ref=r"""
def wrap_text(text: str, width: int) -> list[str]:
    lines, cur = [], ""
    for w in text.split():
        if cur and len(cur) + 1 + len(w) <= width:
            cur += " " + w
        else:
            if cur:
                lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return lines
""", cases=[(["the quick brown fox jumps over the lazy dog", 10], ["the quick", "brown fox", "jumps over", "the lazy", "dog"]), (["", 5], []), (["hello", 3], ["hello"]), (["a b c d", 3], ["a b", "c d"]), (["aa bb", 5], ["aa bb"]), (["aa bb", 4], ["aa", "bb"]), (["tiny enormousword x", 6], ["tiny", "enormousword", "x"])]),
    dict(split="train", difficulty="easy", task=r"""returns the kind of the single character `c`: "upper" for an upper-case letter, "lower" for a lower-case letter, "digit" for a decimal digit, "space" for a whitespace character and "other" for anything else.""", ref=r"""
def char_type(c: str) -> str:
    if c.isupper():
        return "upper"
    if c.islower():
        return "lower"
    if c.isdigit():
        return "digit"
    if c.isspace():
        return "space"
    return "other"
""", cases=[(["Q"], "upper"), (["q"], "lower"), (["7"], "digit"), ([" "], "space"), (["\t"], "space"), (["$"], "other"), (["_"], "other")]),
    dict(split="train", difficulty="medium", task=r"""encrypts `text` with the Vigenere cipher and the non-empty lower-case key `key`: the k-th letter of `text` (counting letters only, from 0) is shifted forward in the alphabet by the position of `key[k % len(key)]` (a = 0, b = 1, ..., wrapping around from z to a), keeping its case; other characters are copied unchanged and do not use up a key letter.""", ref=r"""
def vigenere(text: str, key: str) -> str:
    out = []
    k = 0
    for c in text:
        if c.isalpha():
            base = ord("a") if c.islower() else ord("A")
            shift = ord(key[k % len(key)]) - ord("a")
            out.append(chr((ord(c) - base + shift) % 26 + base))
            k += 1
        else:
            out.append(c)
    return "".join(out)
""", cases=[(["attack at dawn", "lemon"], "lxfopv ef rnhr"), (["Hello, World", "b"], "Ifmmp, Xpsme"), (["abc", "a"], "abc"), (["", "key"], ""), (["XYZ", "bc"], "YAA"), (["a-b-c", "ab"], "a-c-c")]),
    dict(split="train", difficulty="easy", task=r"""returns True if `s` contains every letter of the English alphabet at least once, ignoring case, and False otherwise.""", ref=r"""
def is_pangram(s: str) -> bool:
    return set("abcdefghijklmnopqrstuvwxyz") <= set(s.lower())
""", cases=[(["The quick brown fox jumps over the lazy dog"], True), (["Hello world"], False), ([""], False), (["ABCDEFGHIJKLMNOPQRSTUVWXYZ"], True), (["abcdefghijklmnopqrstuvwxy"], False)]),
    dict(split="train", difficulty="easy", task=r"""returns the integer `n` written with a comma between each group of three digits, counting from the right (a negative number keeps its leading minus sign).""", ref=r"""
def format_thousands(n: int) -> str:
    return f"{n:,}"
""", cases=[([1234567], "1,234,567"), ([0], "0"), ([999], "999"), ([1000], "1,000"), ([-45000], "-45,000"), ([100200300400], "100,200,300,400")]),
    dict(split="train", difficulty="easy", task=r"""returns the characters of `s` sorted by their character codes (so upper-case letters come before lower-case ones), as a string.""", ref=r"""
def sort_letters(s: str) -> str:
    return "".join(sorted(s))
""", cases=[(["banana"], "aaabnn"), ([""], ""), (["dCba"], "Cabd"), (["321"], "123"), (["b a"], " ab")]),
    dict(split="train", difficulty="medium", task=r"""converts the 24-hour time `s` ("HH:MM") to 12-hour form "H:MM AM" or "H:MM PM", with no leading zero on the hour: times from 00:00 to 11:59 are AM and the rest PM, hour 0 is written 12 (so "00:30" is "12:30 AM") and "12:05" is "12:05 PM".""", ref=r"""
def time_12h(s: str) -> str:
    h, m = s.split(":")
    h = int(h)
    suffix = "AM" if h < 12 else "PM"
    return f"{(h - 1) % 12 + 1}:{m} {suffix}"
""", cases=[(["14:05"], "2:05 PM"), (["00:30"], "12:30 AM"), (["12:00"], "12:00 PM"), (["09:15"], "9:15 AM"), (["11:59"], "11:59 AM"), (["23:45"], "11:45 PM"), (["13:00"], "1:00 PM"), (["01:01"], "1:01 AM")]),
    dict(split="train", difficulty="medium", task=r"""encrypts `text` with a columnar transposition: its characters are written row by row into rows of `cols` characters (the last row may be shorter) and then read column by column, from the leftmost column to the rightmost, each column from top to bottom.""", ref=r"""
def columnar_cipher(text: str, cols: int) -> str:
    return "".join(text[i::cols] for i in range(cols))
""", cases=[(["abcdefgh", 3], "adgbehcf"), (["hello", 1], "hello"), (["", 4], ""), (["abc", 5], "abc"), (["WEAREDISCOVERED", 5], "WDVEIEASRRCEEOD")]),
    dict(split="train", difficulty="easy", task=r"""returns the name written as "Last, First" for the given `first` and `last` names, each with its first letter in upper case and the rest in lower case.""", ref=r"""
def format_name(first: str, last: str) -> str:
    return f"{last.capitalize()}, {first.capitalize()}"
""", cases=[(["ada", "LOVELACE"], "Lovelace, Ada"), (["Alan", "Turing"], "Turing, Alan"), (["grace", "hopper"], "Hopper, Grace"), (["x", "y"], "Y, X"), (["mARY", "sHELLEY"], "Shelley, Mary")]),
    dict(split="train", difficulty="easy", task=r"""returns True if the words `a` and `b` (each at least two letters long) end with the same two letters, ignoring case, and False otherwise.""", ref=r"""
def rhymes(a: str, b: str) -> bool:
    return a[-2:].lower() == b[-2:].lower()
""", cases=[(["Night", "flight"], True), (["cat", "hot"], False), (["bat", "CAT"], True), (["sing", "sink"], False), (["ab", "cab"], True), (["xy", "yx"], False)]),
    dict(split="train", difficulty="hard", task=r"""returns the words of `words` (at least two of them) spread over exactly `width` characters with spaces between them: every gap gets the same number of spaces, except that when the spaces cannot be divided evenly the leftmost gaps get one extra space each (`width` is at least the total length of the words plus one space per gap).""", ref=r"""
def justify_line(words: list[str], width: int) -> str:
    gaps = len(words) - 1
    q, r = divmod(width - sum(len(w) for w in words), gaps)
    out = words[0]
    for i, w in enumerate(words[1:]):
        out += " " * (q + (1 if i < r else 0)) + w
    return out
""", cases=[([["This", "is", "an"], 16], "This    is    an"), ([["a", "b"], 5], "a   b"), ([["a", "b", "c"], 6], "a  b c"), ([["ab", "cd", "ef", "g"], 12], "ab  cd  ef g"), ([["x", "y"], 3], "x y"), ([["one", "two", "three"], 15], "one  two  three")]),
    dict(split="train", difficulty="easy", task=r"""returns how many lines of `text` (lines are separated by "\n") contain at least one character that is not whitespace.""", ref=r"""
def count_nonblank_lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.strip())
""", cases=[(["first\n\n  \nsecond\nthird"], 3), ([""], 0), (["one"], 1), (["\n\n"], 0), (["a\n b \n\t\nc\n"], 3)]),
    dict(split="train", difficulty="medium", task=r"""returns the longest string that every string in `words` starts with ("" if `words` is empty or its strings have no common first character).""", ref=r"""
def common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    prefix = words[0]
    for w in words:
        while not w.startswith(prefix):
            prefix = prefix[:-1]
    return prefix
""", cases=[([["flower", "flow", "flight"]], "fl"), ([[]], ""), ([["dog", "car"]], ""), ([["alone"]], "alone"), ([["a", "abc", "abd"]], "a"), ([["abc", "ab"]], "ab"), ([["same", "same"]], "same")],
         survivors=["line 4: value -> -1"]),
    dict(split="train", difficulty="medium", task=r"""returns the whitespace-separated words of `text` joined by single spaces, with every word equal to `word` (ignoring case) replaced by as many "*" characters as it has characters.""", ref=r"""
def censor_word(text: str, word: str) -> str:
    return " ".join("*" * len(w) if w.lower() == word.lower() else w for w in text.split())
""", cases=[(["Darn it, darn DARN", "darn"], "**** it, **** ****"), (["nothing here", "bad"], "nothing here"), (["", "x"], ""), (["badly bad", "bad"], "badly ***"), (["  a  b  ", "A"], "* b")]),
    dict(split="train", difficulty="easy", task=r"""returns the digits of the digit string `s` spelled out as English words ("zero" to "nine"), separated by single spaces ("" for an empty string).""", ref=r"""
def spell_digits(s: str) -> str:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    return " ".join(names[int(c)] for c in s)
""", cases=[(["907"], "nine zero seven"), (["0"], "zero"), (["12345"], "one two three four five"), (["68"], "six eight"), (["11"], "one one"), ([""], "")]),
    dict(split="train", difficulty="easy", task=r"""returns the integer formed by the digits of `s` taken in order (ignoring every other character), or 0 if `s` contains no digits.""", ref=r"""
def extract_number(s: str) -> int:
    digits = "".join(c for c in s if c.isdigit())
    return int(digits) if digits else 0
""", cases=[(["a1b2c3"], 123), (["no digits"], 0), (["007"], 7), (["phone: 555-0199"], 5550199), ([""], 0)]),
    dict(split="train", difficulty="medium", task=r"""returns True if `s` looks like an email address: it contains exactly one "@", the part before the "@" is not empty, and the part after it contains at least one dot but neither starts nor ends with a dot; otherwise False.""", ref=r"""
def is_valid_email(s: str) -> bool:
    if s.count("@") != 1:
        return False
    local, domain = s.split("@")
    return local != "" and "." in domain and not domain.startswith(".") and not domain.endswith(".")
""", cases=[(["ann@example.com"], True), (["ann.example.com"], False), (["a@b@c.com"], False), (["@example.com"], False), (["ann@com"], False), (["ann@.com"], False), (["ann@example."], False), (["x@a.b"], True)]),
    dict(split="train", difficulty="easy", task=r"""returns the binary string `s` with every "0" changed to "1" and every "1" changed to "0".""", ref=r"""
def flip_bits(s: str) -> str:
    return "".join("1" if c == "0" else "0" for c in s)
""", cases=[(["1100"], "0011"), ([""], ""), (["0"], "1"), (["1"], "0"), (["101011"], "010100")]),
    dict(split="train", difficulty="easy", task=r"""returns the word at index `n` (0 for the first) among the whitespace-separated words of `s`, or "" if there is no such word (`n` is never negative).""", ref=r"""
def nth_word(s: str, n: int) -> str:
    words = s.split()
    return words[n] if n < len(words) else ""
""", cases=[(["the quick brown fox", 2], "brown"), (["the quick brown fox", 0], "the"), (["one two", 2], ""), (["", 0], ""), (["  a  b  ", 1], "b"), (["x", 5], "")]),
    dict(split="train", difficulty="easy", task=r"""returns `s` padded on the right with the character `ch` until its length is a multiple of `k` (`k` is at least 1; a length that already is a multiple, 0 included, needs no padding).""", ref=r"""
def pad_to_multiple(s: str, k: int, ch: str) -> str:
    return s + ch * (-len(s) % k)
""", cases=[(["abcde", 4, "."], "abcde..."), (["abcd", 4, "."], "abcd"), (["", 3, "x"], ""), (["a", 1, "-"], "a"), (["ab", 5, "*"], "ab***"), (["abcdefg", 3, "0"], "abcdefg00")]),
    dict(split="train", difficulty="medium", task=r"""returns the 24-hour time "HH:MM" that comes `minutes` minutes after the time `t` (also written "HH:MM"), wrapping around midnight; `minutes` is non-negative and may be more than a day.""", ref=r"""
def time_add(t: str, minutes: int) -> str:
    h, m = map(int, t.split(":"))
    total = (h * 60 + m + minutes) % 1440
    return f"{total // 60:02d}:{total % 60:02d}"
""", cases=[(["23:30", 45], "00:15"), (["09:05", 0], "09:05"), (["00:00", 1439], "23:59"), (["12:00", 1440], "12:00"), (["10:59", 1], "11:00"), (["06:30", 3000], "08:30")]),
    dict(split="train", difficulty="medium", task=r"""simulates typing `s` on a keyboard where the character "^" is the Caps Lock key: each "^" switches Caps Lock on or off (it starts off) and is not typed itself, letters typed while Caps Lock is on come out with their case swapped (lower to upper, upper to lower), and every other character is typed unchanged.""", ref=r"""
def caps_lock_typing(s: str) -> str:
    out = []
    caps = False
    for c in s:
        if c == "^":
            caps = not caps
        else:
            out.append(c.swapcase() if caps else c)
    return "".join(out)
""", cases=[(["hello ^world^ again"], "hello WORLD again"), ([""], ""), (["^^abc"], "abc"), (["^Hi There"], "hI tHERE"), (["no caps"], "no caps"), (["a^b^c^d"], "aBcD")]),
    dict(split="train", difficulty="easy", task=r"""returns the strings of `cells`, each padded on the right with spaces to `width` characters (longer ones are left as they are), joined by " | ".""", ref=r"""
def format_row(cells: list[str], width: int) -> str:
    return " | ".join(c.ljust(width) for c in cells)
""", cases=[([["id", "name"], 4], "id   | name"), ([["a", "bb", "c"], 2], "a  | bb | c "), ([[], 3], ""), ([["toolong"], 3], "toolong"), ([["x"], 0], "x")]),
    dict(split="train", difficulty="hard", task=r"""returns the pairs `[i, j]` of indices of matching parentheses in `s`, where the "(" at index i is matched by the ")" at index j, sorted by i; the parentheses of `s` are balanced and other characters are ignored.""", ref=r"""
def paren_pairs(s: str) -> list[list[int]]:
    stack, pairs = [], []
    for i, c in enumerate(s):
        if c == "(":
            stack.append(i)
        elif c == ")":
            pairs.append([stack.pop(), i])
    return sorted(pairs)
""", cases=[(["(a(b)c)"], [[0, 6], [2, 4]]), ([""], []), (["()()"], [[0, 1], [2, 3]]), (["x(y)"], [[1, 3]]), (["(())"], [[0, 3], [1, 2]]), (["((a)(b))"], [[0, 7], [1, 3], [4, 6]])]),
    dict(split="train", difficulty="easy", task=r"""returns the extension of `filename`: the part after its last dot, in lower case, or "" if `filename` contains no dot.""", ref=r"""
def file_extension(filename: str) -> str:
    return filename.rsplit(".", 1)[1].lower() if "." in filename else ""
""", cases=[(["report.PDF"], "pdf"), (["archive.tar.gz"], "gz"), (["README"], ""), (["notes."], ""), ([".bashrc"], "bashrc")]),
    dict(split="train", difficulty="medium", task=r"""returns the sum of all the numbers written in `s`, where a number is a longest possible run of consecutive decimal digits (so "a12b3" contains 12 and 3); 0 if there are none.""", ref=r"""
def sum_numbers_in_string(s: str) -> int:
    total, num = 0, ""
    for c in s + " ":
        if c.isdigit():
            num += c
        elif num:
            total += int(num)
            num = ""
    return total
""", cases=[(["12 apples and 30 pears"], 42), (["no numbers"], 0), ([""], 0), (["a12b3"], 15), (["007x"], 7), (["99"], 99), (["1 2 3 4"], 10)]),
    dict(split="train", difficulty="easy", task=r"""returns the three lines of a box drawn around `s`: first "+", then one "-" per character of `s`, then "+"; then "|", `s` and "|"; then the first line again.""", ref=r"""
def box_text(s: str) -> list[str]:
    edge = "+" + "-" * len(s) + "+"
    return [edge, "|" + s + "|", edge]
""", cases=[(["hi"], ["+--+", "|hi|", "+--+"]), ([""], ["++", "||", "++"]), (["hello"], ["+-----+", "|hello|", "+-----+"]), (["a b"], ["+---+", "|a b|", "+---+"]), (["x"], ["+-+", "|x|", "+-+"])]),
    dict(split="train", difficulty="medium", task=r"""returns True if the characters of `a` appear in `b` in the same order, though not necessarily next to each other (an empty `a` always does), and False otherwise.""", ref=r"""
def is_subsequence(a: str, b: str) -> bool:
    i = 0
    for c in b:
        if i < len(a) and a[i] == c:
            i += 1
    return i == len(a)
""", cases=[(["ace", "abcde"], True), (["aec", "abcde"], False), (["", "abc"], True), (["abc", ""], False), (["abc", "abc"], True), (["aa", "a"], False), (["ab", "abxx"], True)]),
    dict(split="train", difficulty="easy", task=r"""returns `n` strings that draw a right-aligned staircase: the i-th string (counting from 1) is `n - i` spaces followed by `i` "#" characters ([] for `n` = 0).""", ref=r"""
def staircase(n: int) -> list[str]:
    return [" " * (n - i) + "#" * i for i in range(1, n + 1)]
""", cases=[([3], ["  #", " ##", "###"]), ([0], []), ([1], ["#"]), ([2], [" #", "##"]), ([4], ["   #", "  ##", " ###", "####"])]),
    dict(split="train", difficulty="medium", task=r"""returns True if `s` is an integer literal: an optional "+" or "-" sign followed by one or more decimal digits 0-9 and nothing else (no spaces), and False otherwise.""", ref=r"""
def is_integer_string(s: str) -> bool:
    if s[:1] in ("+", "-"):
        s = s[1:]
    return s != "" and all(c in "0123456789" for c in s)
""", cases=[(["-42"], True), (["+7"], True), (["123"], True), ([""], False), (["-"], False), (["4.5"], False), (["1 2"], False), (["--1"], False), (["0"], True), (["a1"], False), (["5"], True)]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with the characters at even indices (0, 2, 4, ...) in upper case and those at odd indices in lower case.""", ref=r"""
def alternate_case(s: str) -> str:
    return "".join(c.upper() if i % 2 == 0 else c.lower() for i, c in enumerate(s))
""", cases=[(["hello world"], "HeLlO WoRlD"), ([""], ""), (["ABCD"], "AbCd"), (["a"], "A"), (["xyzxyz"], "XyZxYz")]),
    dict(split="train", difficulty="easy", task=r"""returns the characters of `s` separated by single spaces (a space character in `s` is kept as a character of its own).""", ref=r"""
def spread_chars(s: str) -> str:
    return " ".join(s)
""", cases=[(["hello"], "h e l l o"), ([""], ""), (["a"], "a"), (["ab"], "a b"), (["1 2"], "1   2")]),
    dict(split="train", difficulty="medium", task=r"""turns the title `s` into a URL slug: it converts `s` to lower case, drops every character that is not a letter, a digit or whitespace, and joins the remaining whitespace-separated words with "-".""", ref=r"""
def title_to_slug(s: str) -> str:
    kept = "".join(c for c in s.lower() if c.isalnum() or c.isspace())
    return "-".join(kept.split())
""", cases=[(["Hello, World! 2024 Edition"], "hello-world-2024-edition"), ([""], ""), (["  Python   Tips "], "python-tips"), (["C++ & C#"], "c-c"), (["It's 5 o'clock"], "its-5-oclock")]),
    dict(split="train", difficulty="hard", task=r"""splits the line `s` at commas into fields, except that commas between a pair of double quotes do not split; the double-quote characters themselves are dropped and the fields are not stripped (an empty `s` gives [""]).""", ref=r"""
def split_csv_quoted(s: str) -> list[str]:
    fields, cur, quoted = [], "", False
    for c in s:
        if c == '"':
            quoted = not quoted
        elif c == "," and not quoted:
            fields.append(cur)
            cur = ""
        else:
            cur += c
    fields.append(cur)
    return fields
""", cases=[(['name,"Smith, John",42'], ["name", "Smith, John", "42"]), ([""], [""]), (["a,,b"], ["a", "", "b"]), (['"a,b",c'], ["a,b", "c"]), ([" x , y "], [" x ", " y "]), (['"",z'], ["", "z"])]),
    dict(split="train", difficulty="easy", task=r"""returns the complement of the DNA strand `s`: every "A" becomes "T", every "T" becomes "A", every "C" becomes "G" and every "G" becomes "C".""", ref=r"""
def dna_complement(s: str) -> str:
    return s.translate(str.maketrans("ATCG", "TAGC"))
""", cases=[(["ATTGC"], "TAACG"), ([""], ""), (["A"], "T"), (["GGCC"], "CCGG"), (["TACG"], "ATGC")]),
    dict(split="train", difficulty="easy", task=r"""converts the date `s` from the form "YYYY-MM-DD" to the form "DD/MM/YYYY".""", ref=r"""
def reformat_date(s: str) -> str:
    y, m, d = s.split("-")
    return f"{d}/{m}/{y}"
""", cases=[(["2024-03-15"], "15/03/2024"), (["1999-12-31"], "31/12/1999"), (["2000-01-01"], "01/01/2000"), (["0001-02-03"], "03/02/0001"), (["2023-11-05"], "05/11/2023")]),
    dict(split="train", difficulty="easy", task=r"""abbreviates `word` as its first character, the number of characters between the first and the last, and its last character (so "localization" becomes "l10n"); words shorter than 4 characters are returned unchanged.""", ref=r"""
def abbreviate_word(word: str) -> str:
    if len(word) < 4:
        return word
    return f"{word[0]}{len(word) - 2}{word[-1]}"
""", cases=[(["internationalization"], "i18n"), (["cat"], "cat"), (["word"], "w2d"), (["ab"], "ab"), (["hello"], "h3o"), ([""], "")]),
    dict(split="train", difficulty="medium", task=r"""removes the comments from the source code `code`: on each line (lines are separated by "\n") everything from the first "#" onwards is dropped, then the trailing whitespace of every line is removed; lines that become empty are kept, and the lines are joined again by "\n".""", ref=r"""
def remove_comments(code: str) -> str:
    return "\n".join(line.partition("#")[0].rstrip() for line in code.split("\n"))
""", cases=[(["x = 1  # set x\n# full line\ny = 2"], "x = 1\n\ny = 2"), ([""], ""), (["no comment  "], "no comment"), (["a#b#c"], "a"), (["#\n#"], "\n"), (["  indented # c"], "  indented")]),
    dict(split="train", difficulty="easy", task=r"""returns the whitespace-separated words of `s` that contain the letter `c`, ignoring case, in their original order and form.""", ref=r"""
def words_containing(s: str, c: str) -> list[str]:
    return [w for w in s.split() if c.lower() in w.lower()]
""", cases=[(["Apple banana Cherry date", "a"], ["Apple", "banana", "date"]), (["Apple banana Cherry date", "C"], ["Cherry"]), (["", "x"], []), (["xyz", "q"], []), (["Zebra zoo", "z"], ["Zebra", "zoo"])]),
    dict(split="train", difficulty="medium", task=r"""returns the length of the longest block of identical characters standing next to each other in `s` (0 for an empty string).""", ref=r"""
def longest_run(s: str) -> int:
    best = run = 0
    prev = None
    for c in s:
        run = run + 1 if c == prev else 1
        prev = c
        best = max(best, run)
    return best
""", cases=[(["aabbbcc"], 3), ([""], 0), (["a"], 1), (["abc"], 1), (["aaaa"], 4), (["abbbbaa"], 4), (["xyyz"], 2)]),
    dict(split="train", difficulty="hard", task=r"""formats `rows`, a list of rows of strings, as aligned text lines: each cell is padded on the right with spaces to the width of the widest cell in its column, the cells of a row are joined by two spaces, and trailing spaces are removed from each line; rows may have different numbers of cells.""", ref=r"""
def align_columns(rows: list[list[str]]) -> list[str]:
    widths = []
    for row in rows:
        for i, cell in enumerate(row):
            if i == len(widths):
                widths.append(len(cell))
            else:
                widths[i] = max(widths[i], len(cell))
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
""", cases=[([[["name", "age"], ["Ada", "36"], ["Grace", "85"]]], ["name   age", "Ada    36", "Grace  85"]), ([[]], []), ([[["a"]]], ["a"]), ([[["a", "b", "c"], ["dd"]]], ["a   b  c", "dd"]), ([[["x", ""], ["", "y"]]], ["x", "   y"])]),
    dict(split="train", difficulty="easy", task=r"""returns `text` with the whitespace at the end of each line removed (lines are separated by "\n"), the lines joined again by "\n".""", ref=r"""
def strip_trailing_spaces(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n"))
""", cases=[(["a  \nb\t\n  c  "], "a\nb\n  c"), ([""], ""), (["no change"], "no change"), (["   \n x "], "\n x"), (["end \n"], "end\n")]),
    dict(split="train", difficulty="easy", task=r"""returns the whitespace-separated words of `s` joined by single spaces, with every word of at least `n` characters converted to upper case and the other words unchanged.""", ref=r"""
def shout_long_words(s: str, n: int) -> str:
    return " ".join(w.upper() if len(w) >= n else w for w in s.split())
""", cases=[(["this is really great", 5], "this is REALLY GREAT"), (["abc ab", 3], "ABC ab"), (["", 2], ""), (["Hi there", 1], "HI THERE"), (["tiny", 10], "tiny")]),
    dict(split="train", difficulty="medium", task=r"""returns True if `s` is a valid identifier: it is non-empty, consists only of ASCII letters, digits and underscores, and does not start with a digit; otherwise False.""", ref=r"""
def is_valid_identifier(s: str) -> bool:
    allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
    return s != "" and not s[0].isdigit() and all(c in allowed for c in s)
""", cases=[(["my_var2"], True), (["2fast"], False), ([""], False), (["_private"], True), (["has space"], False), (["ok-dash"], False), (["X"], True), (["9"], False)]),
    dict(split="train", difficulty="easy", task=r"""returns how many space characters `s` starts with (only " " counts, not tabs).""", ref=r"""
def count_leading_spaces(s: str) -> int:
    return len(s) - len(s.lstrip(" "))
""", cases=[(["   indented"], 3), (["none"], 0), ([""], 0), (["    "], 4), ([" a b  "], 1), (["\t x"], 0)]),
    dict(split="train", difficulty="easy", task=r"""returns the hashtags of `s`: for every whitespace-separated word that starts with "#" and has at least one more character, the word without its first "#", in order.""", ref=r"""
def extract_hashtags(s: str) -> list[str]:
    return [w[1:] for w in s.split() if w.startswith("#") and len(w) > 1]
""", cases=[(["loving the #sun and #sea today"], ["sun", "sea"]), (["no tags here"], []), (["# alone #ok"], ["ok"]), (["#a#b"], ["a#b"]), ([""], []), (["mid#tag #x"], ["x"])]),
    dict(split="train", difficulty="medium", task=r"""returns the strings of `lines`, each padded on the left with spaces to the length of the longest one so that they line up on the right ([] for an empty list).""", ref=r"""
def right_align_lines(lines: list[str]) -> list[str]:
    if not lines:
        return []
    width = max(len(line) for line in lines)
    return [line.rjust(width) for line in lines]
""", cases=[([["a", "abc", "ab"]], ["  a", "abc", " ab"]), ([[]], []), ([["x"]], ["x"]), ([["", "12"]], ["  ", "12"]), ([["hello", "hi"]], ["hello", "   hi"])]),
    dict(split="train", difficulty="easy", task=r"""returns True if `s` contains at least one letter and none of its letters is lower case, and False otherwise.""", ref=r"""
def is_shouting(s: str) -> bool:
    return s.isupper()
""", cases=[(["STOP IT!"], True), (["Stop it"], False), (["123!"], False), ([""], False), (["OK 2"], True), (["ABCd"], False)]),
    dict(split="train", difficulty="medium", task=r"""compares the version strings `a` and `b` (non-negative integers separated by dots) part by part as numbers, where a missing part counts as 0 (so "1.2" equals "1.2.0"), and returns -1 if `a` is the lower version, 1 if it is the higher one and 0 if they are equal.""", ref=r"""
def version_compare(a: str, b: str) -> int:
    pa = [int(x) for x in a.split(".")]
    pb = [int(x) for x in b.split(".")]
    n = max(len(pa), len(pb))
    pa += [0] * (n - len(pa))
    pb += [0] * (n - len(pb))
    return (pa > pb) - (pa < pb)
""", cases=[(["1.2.10", "1.2.9"], 1), (["1.0", "1.0.0"], 0), (["0.9", "1.0"], -1), (["2", "10"], -1), (["3.1", "3.1"], 0), (["1.2.0.1", "1.2"], 1), (["1.01", "1.1"], 0), (["1.2.0", "1.2"], 0)]),
    dict(split="train", difficulty="medium", task=r"""returns `s` with every HTML tag removed, where a tag is everything from a "<" up to and including the next ">" (`s` has no "<" or ">" outside of tags).""", ref=r"""
def strip_html_tags(s: str) -> str:
    out = []
    inside = False
    for c in s:
        if c == "<":
            inside = True
        elif c == ">":
            inside = False
        elif not inside:
            out.append(c)
    return "".join(out)
""", cases=[(["<p>Hello <b>world</b></p>"], "Hello world"), ([""], ""), (["no tags"], "no tags"), (["<br/>"], ""), (["a<i>b</i>c"], "abc")]),
    dict(split="train", difficulty="easy", task=r"""returns the color with red, green and blue components `r`, `g` and `b` (each from 0 to 255) written as "#RRGGBB", with two upper-case hexadecimal digits per component.""", ref=r"""
def rgb_to_hex(r: int, g: int, b: int) -> str:
    return f"#{r:02X}{g:02X}{b:02X}"
""", cases=[([255, 128, 0], "#FF8000"), ([0, 0, 0], "#000000"), ([255, 255, 255], "#FFFFFF"), ([1, 2, 3], "#010203"), ([16, 171, 205], "#10ABCD")]),
    dict(split="train", difficulty="easy", task=r"""returns a progress bar of `width` characters between square brackets: the first `done * width // total` characters are "#" and the rest are "-" (`total` is positive and 0 <= `done` <= `total`).""", ref=r"""
def progress_bar(done: int, total: int, width: int) -> str:
    filled = done * width // total
    return "[" + "#" * filled + "-" * (width - filled) + "]"
""", cases=[([3, 10, 10], "[###-------]"), ([0, 5, 4], "[----]"), ([5, 5, 4], "[####]"), ([1, 3, 10], "[###-------]"), ([2, 3, 6], "[####--]"), ([1, 2, 0], "[]")]),
    dict(split="train", difficulty="hard", task=r"""sorts the strings `names` in natural order: each string is split into runs of digits and runs of other characters, digit runs are compared as numbers and other runs as text (case-sensitive, by character codes), so "file2" comes before "file10"; strings that compare equal keep their original order.""", ref=r"""
def natural_sort(names: list[str]) -> list[str]:
    import re
    return sorted(names, key=lambda s: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)])
""", cases=[([["file10", "file2", "file1"]], ["file1", "file2", "file10"]), ([[]], []), ([["b", "a", "B"]], ["B", "a", "b"]), ([["v1.10", "v1.9", "v1.2"]], ["v1.2", "v1.9", "v1.10"]), ([["x01", "x1", "x0"]], ["x0", "x01", "x1"]), ([["10", "9", "a"]], ["9", "10", "a"])]),
    dict(split="train", difficulty="easy", task=r"""returns `s` padded on the left with the character `ch` until it is `width` characters long (a string that is already that long or longer is returned unchanged).""", ref=r"""
def pad_left(s: str, width: int, ch: str) -> str:
    return s.rjust(width, ch)
""", cases=[(["42", 5, "0"], "00042"), (["hello", 3, "*"], "hello"), (["", 2, "-"], "--"), (["abc", 3, "x"], "abc"), (["7", 2, " "], " 7")]),
    dict(split="train", difficulty="medium", task=r"""returns "<n> <noun>" with the noun in plural form when `n` is not 1: the plural adds "es" if the noun ends in "s", "x", "ch" or "sh" and "s" otherwise; when `n` is 1 the noun stays as it is.""", ref=r"""
def pluralize(n: int, noun: str) -> str:
    if n != 1:
        noun += "es" if noun.endswith(("s", "x", "ch", "sh")) else "s"
    return f"{n} {noun}"
""", cases=[([3, "box"], "3 boxes"), ([1, "box"], "1 box"), ([0, "cat"], "0 cats"), ([2, "church"], "2 churches"), ([5, "dish"], "5 dishes"), ([2, "bus"], "2 buses"), ([1, "cat"], "1 cat"), ([2, "dog"], "2 dogs"), ([2, "beach"], "2 beaches")]),
    dict(split="train", difficulty="medium", task=r"""replaces every placeholder "{name}" in `template` by `values[name]`; placeholders whose name is not a key of `values` are left as they are (`template` has no other braces, and the values contain no braces).""", ref=r"""
def template_fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template
""", cases=[(["Hi {name}, you are {age}.", {"name": "Ada", "age": "36"}], "Hi Ada, you are 36."), (["{x}{x}", {"x": "ab"}], "abab"), (["{missing} stays", {}], "{missing} stays"), (["", {"a": "b"}], ""), (["{a} and {b}", {"a": "1"}], "1 and {b}")]),
    dict(split="train", difficulty="easy", task=r"""returns `left`, then a row of dots, then `right`, using as many dots as needed to make the result `width` characters long, but always at least one dot.""", ref=r"""
def dot_leader(left: str, right: str, width: int) -> str:
    dots = max(width - len(left) - len(right), 1)
    return left + "." * dots + right
""", cases=[(["Intro", "1", 10], "Intro....1"), (["Chapter", "12", 9], "Chapter.12"), (["abc", "def", 4], "abc.def"), (["", "", 3], "..."), (["a", "b", 5], "a...b")]),
    dict(split="train", difficulty="easy", task=r"""returns the sum of the alphabet positions of the letters of `word` ("a" or "A" is 1, "b" or "B" is 2, ..., "z" or "Z" is 26), ignoring every character that is not a letter.""", ref=r"""
def word_score(word: str) -> int:
    return sum(ord(c) - ord("a") + 1 for c in word.lower() if c.isalpha())
""", cases=[(["abc"], 6), (["Zz"], 52), ([""], 0), (["Hi!"], 17), (["Python 3"], 98)]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with every "&" replaced by "&amp;", every "<" by "&lt;" and every ">" by "&gt;".""", ref=r"""
def html_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
""", cases=[(["a < b && c > d"], "a &lt; b &amp;&amp; c &gt; d"), ([""], ""), (["plain"], "plain"), (["<&>"], "&lt;&amp;&gt;"), (["&lt;"], "&amp;lt;")]),
    dict(split="train", difficulty="medium", task=r"""reduces the fraction `s`, written "numerator/denominator" with positive integers, to lowest terms and returns it in the same form (a denominator of 1 is still written, as in "4/1").""", ref=r"""
def simplify_fraction_string(s: str) -> str:
    from math import gcd
    a, b = map(int, s.split("/"))
    g = gcd(a, b)
    return f"{a // g}/{b // g}"
""", cases=[(["6/8"], "3/4"), (["3/4"], "3/4"), (["10/5"], "2/1"), (["100/75"], "4/3"), (["7/7"], "1/1")]),
    dict(split="train", difficulty="hard", task=r"""returns the string that follows the non-empty lower-case string `s` when it is counted like an odometer over the letters a-z: the last letter moves on to the next letter, and a "z" turns into "a" and carries to the letter before it; if every letter is "z", the result is all "a"s with one more "a" in front (so "zz" gives "aaa").""", ref=r"""
def increment_letters(s: str) -> str:
    chars = list(s)
    i = len(chars) - 1
    while i >= 0 and chars[i] == "z":
        chars[i] = "a"
        i -= 1
    if i < 0:
        return "a" + "".join(chars)
    chars[i] = chr(ord(chars[i]) + 1)
    return "".join(chars)
""", cases=[(["abz"], "aca"), (["a"], "b"), (["z"], "aa"), (["zz"], "aaa"), (["azz"], "baa"), (["hello"], "hellp"), (["yz"], "za")],
         survivors=["line 4: value -> -1"]),
    dict(split="train", difficulty="easy", task=r"""returns True if `s` is non-empty and its first and last characters are the same (case-sensitive), and False otherwise.""", ref=r"""
def starts_and_ends_same(s: str) -> bool:
    return s != "" and s[0] == s[-1]
""", cases=[(["level"], True), (["abc"], False), ([""], False), (["a"], True), (["Aa"], False), (["abca"], True)]),
    dict(split="train", difficulty="medium", task=r"""converts the duration `s`, written as numbers each followed by a unit "h" (hours), "m" (minutes) or "s" (seconds), such as "1h30m" or "45s", into a total number of seconds (each unit appears at most once; an empty string gives 0).""", ref=r"""
def parse_duration(s: str) -> int:
    units = {"h": 3600, "m": 60, "s": 1}
    total, num = 0, ""
    for c in s:
        if c.isdigit():
            num += c
        else:
            total += int(num) * units[c]
            num = ""
    return total
""", cases=[(["1h30m"], 5400), (["45s"], 45), ([""], 0), (["2h"], 7200), (["1m1s"], 61), (["1h2m3s"], 3723), (["10m"], 600)]),
    dict(split="train", difficulty="easy", task=r"""compares the equally long words `guess` and `answer` position by position and returns a string with "G" where the letters are equal, "Y" where the guessed letter occurs somewhere else in `answer`, and "-" where it does not occur in `answer` at all.""", ref=r"""
def wordle_feedback(guess: str, answer: str) -> str:
    return "".join("G" if g == a else "Y" if g in answer else "-" for g, a in zip(guess, answer))
""", cases=[(["crane", "cider"], "GY--Y"), (["abc", "abc"], "GGG"), (["xyz", "abc"], "---"), (["", ""], ""), (["aab", "abb"], "GYG"), (["ba", "ab"], "YY")]),
    dict(split="train", difficulty="easy", task=r"""decodes the bit string `bits`, whose length is a multiple of 8, by reading each group of 8 bits as a binary number and turning it into the character with that code (so "01000001" is "A").""", ref=r"""
def bits_to_text(bits: str) -> str:
    return "".join(chr(int(bits[i : i + 8], 2)) for i in range(0, len(bits), 8))
""", cases=[(["0100100001101001"], "Hi"), ([""], ""), (["01000001"], "A"), (["001100010011001000110011"], "123"), (["00100000"], " ")]),
    dict(split="train", difficulty="hard", task=r"""converts the arithmetic expression `expr` (single-digit numbers, the operators + - * /, parentheses, no spaces) to postfix (reverse Polish) notation and returns it as a string without spaces; * and / bind tighter than + and -, and operators of equal precedence are applied from left to right.""", ref=r"""
def infix_to_postfix(expr: str) -> str:
    prec = {"+": 1, "-": 1, "*": 2, "/": 2}
    out, stack = [], []
    for c in expr:
        if c.isdigit():
            out.append(c)
        elif c == "(":
            stack.append(c)
        elif c == ")":
            while stack[-1] != "(":
                out.append(stack.pop())
            stack.pop()
        else:
            while stack and stack[-1] != "(" and prec[stack[-1]] >= prec[c]:
                out.append(stack.pop())
            stack.append(c)
    while stack:
        out.append(stack.pop())
    return "".join(out)
""", cases=[(["1+2*3"], "123*+"), (["(1+2)*3"], "12+3*"), (["1-2+3"], "12-3+"), (["1/2*3"], "12/3*"), (["1-2/3"], "123/-"), (["7"], "7"), (["2*(3-1)/4"], "231-*4/"), (["1+2-3"], "12+3-"), (["1*2/3"], "12*3/"), (["1+(2*3-4)"], "123*4-+"), (["(1*2+3)"], "12*3+")]),
    dict(split="train", difficulty="medium", task=r"""joins the strings of `items` as an English list: "" for no items, the item itself for one, "a and b" for two, and "a, b and c" for three or more (commas between all items except the last two, which are joined by " and ").""", ref=r"""
def english_list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
""", cases=[([["apples", "pears", "plums"]], "apples, pears and plums"), ([[]], ""), ([["tea"]], "tea"), ([["salt", "pepper"]], "salt and pepper"), ([["a", "b", "c", "d"]], "a, b, c and d")]),
    dict(split="train", difficulty="easy", task=r"""returns True if `s` is non-empty and every character of it is a hexadecimal digit (0-9, a-f or A-F), and False otherwise.""", ref=r"""
def is_hex_string(s: str) -> bool:
    return s != "" and all(c in "0123456789abcdefABCDEF" for c in s)
""", cases=[(["1aF3"], True), ([""], False), (["12g4"], False), (["DEADBEEF"], True), (["0x1F"], False), (["7"], True)]),
    dict(split="train", difficulty="medium", task=r"""decodes `s`, a concatenation of items each written as its length in decimal digits, a colon and then exactly that many characters (so "3:abc2:hi" holds "abc" and "hi"), and returns the list of items; the items themselves may contain digits and colons.""", ref=r"""
def decode_length_prefixed(s: str) -> list[str]:
    out = []
    i = 0
    while i < len(s):
        colon = s.index(":", i)
        n = int(s[i:colon])
        out.append(s[colon + 1 : colon + 1 + n])
        i = colon + 1 + n
    return out
""", cases=[(["3:abc2:hi"], ["abc", "hi"]), ([""], []), (["0:"], [""]), (["4:a:1b1:x"], ["a:1b", "x"]), (["10:0123456789"], ["0123456789"]), (["1::1::"], [":", ":"])]),
    dict(split="train", difficulty="easy", task=r"""returns `s` centered in a field of `width` characters by adding spaces on both sides; when the number of spaces to add is odd, the extra one goes on the right, and a string at least `width` characters long is returned unchanged.""", ref=r"""
def center_text(s: str, width: int) -> str:
    pad = width - len(s)
    return " " * (pad // 2) + s + " " * (pad - pad // 2)
""", cases=[(["hi", 7], "  hi   "), (["abc", 5], " abc "), (["long", 2], "long"), (["", 3], "   "), (["ab", 2], "ab"), (["x", 4], " x  ")]),
    dict(split="train", difficulty="easy", task=r"""returns `text` wrapped in the HTML tag `tag`: "<" + `tag` + ">", then `text`, then "</" + `tag` + ">".""", ref=r"""
def html_tag(tag: str, text: str) -> str:
    return f"<{tag}>{text}</{tag}>"
""", cases=[(["b", "bold"], "<b>bold</b>"), (["p", ""], "<p></p>"), (["em", "a b"], "<em>a b</em>"), (["h1", "Title"], "<h1>Title</h1>"), (["span", "<i>x</i>"], "<span><i>x</i></span>")]),
    dict(split="train", difficulty="medium", task=r"""returns the alphabetically smallest rotation of `s`, where a rotation moves some characters from the start of `s` to its end (`s` itself is one of its rotations; "" gives "").""", ref=r"""
def smallest_rotation(s: str) -> str:
    return min((s[i:] + s[:i] for i in range(len(s))), default=s)
""", cases=[(["cabd"], "abdc"), ([""], ""), (["a"], "a"), (["bca"], "abc"), (["baba"], "abab"), (["zzaz"], "azzz")]),
    dict(split="train", difficulty="medium", task=r"""returns the maximum nesting depth of the parentheses in `s` (0 if it has none); the parentheses of `s` are balanced and all other characters are ignored.""", ref=r"""
def bracket_depth(s: str) -> int:
    depth = best = 0
    for c in s:
        if c == "(":
            depth += 1
            best = max(best, depth)
        elif c == ")":
            depth -= 1
    return best
""", cases=[(["(a(b)c)((d))"], 2), ([""], 0), (["no parens"], 0), (["()"], 1), (["((()))"], 3), (["()()()"], 1), (["(()(()))"], 3)]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with the string `sub` inserted before the character at index `i` (0 <= `i` <= len(s); `i` equal to len(s) appends `sub` at the end).""", ref=r"""
def insert_at(s: str, i: int, sub: str) -> str:
    return s[:i] + sub + s[i:]
""", cases=[(["helo", 3, "l"], "hello"), (["abc", 0, "X"], "Xabc"), (["abc", 3, "!"], "abc!"), (["", 0, "hi"], "hi"), (["ab", 1, "--"], "a--b")]),
    dict(split="train", difficulty="easy", task=r"""returns True if `a` and `b` are equal after removing their leading and trailing whitespace and ignoring case, and False otherwise.""", ref=r"""
def same_text(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()
""", cases=[(["  Hello ", "hello"], True), (["abc", "abd"], False), (["", "   "], True), (["A B", "a  b"], False), (["X", "x\n"], True)]),
    dict(split="train", difficulty="easy", task=r"""returns the text of `s` between the first occurrence of `start` and the next occurrence of `end` after it, or "" if `start` does not occur or no `end` follows it.""", ref=r"""
def text_between(s: str, start: str, end: str) -> str:
    i = s.find(start)
    if i == -1:
        return ""
    i += len(start)
    j = s.find(end, i)
    return s[i:j] if j != -1 else ""
""", cases=[(["name: [Ada] age: [36]", "[", "]"], "Ada"), (["no brackets", "[", "]"], ""), (["[open only", "[", "]"], ""), (["<<a>>", "<<", ">>"], "a"), (["x()y", "(", ")"], ""), (["end) before (start", "(", ")"], ""), (["a[bc]", "[", "]"], "bc"), (["a]b", "[", "]"], "")]),
    dict(split="train", difficulty="medium", task=r"""returns how many different substrings of length `k` (runs of `k` consecutive characters) `s` contains; `k` is at least 1, and the answer is 0 if `s` is shorter than `k`.""", ref=r"""
def count_distinct_substrings(s: str, k: int) -> int:
    return len({s[i : i + k] for i in range(len(s) - k + 1)})
""", cases=[(["banana", 2], 3), (["aab", 2], 2), (["abc", 5], 0), (["aaaa", 1], 1), (["abcd", 1], 4), (["abab", 3], 2), (["", 1], 0)]),
    dict(split="train", difficulty="easy", task=r"""returns the part of the email address `email` before its "@", in lower case.""", ref=r"""
def email_username(email: str) -> str:
    return email.split("@")[0].lower()
""", cases=[(["John.Doe@Example.com"], "john.doe"), (["a@b"], "a"), (["ADMIN@site.org"], "admin"), (["@nobody.com"], ""), (["x_y@z.io"], "x_y")]),
    dict(split="train", difficulty="easy", task=r"""returns the non-empty `noun` preceded by its indefinite article: "an " if it starts with a vowel letter (a, e, i, o or u, in either case) and "a " otherwise.""", ref=r"""
def with_article(noun: str) -> str:
    return ("an " if noun[0].lower() in "aeiou" else "a ") + noun
""", cases=[(["apple"], "an apple"), (["pear"], "a pear"), (["Egg"], "an Egg"), (["banana"], "a banana"), (["umbrella"], "an umbrella"), (["x"], "a x"), (["idea"], "an idea")]),
    dict(split="train", difficulty="medium", task=r"""returns True if `s` is in kebab-case: one or more non-empty words of lower-case ASCII letters a-z joined by single hyphens (no leading, trailing or doubled hyphens), and False otherwise.""", ref=r"""
def is_kebab_case(s: str) -> bool:
    return all(w != "" and all("a" <= c <= "z" for c in w) for w in s.split("-"))
""", cases=[(["hello-big-world"], True), (["Hello-world"], False), ([""], False), (["-start"], False), (["end-"], False), (["double--dash"], False), (["single"], True), (["az-za"], True), (["snake_case"], False), (["abc1"], False)]),
    dict(split="train", difficulty="easy", task=r"""joins the strings of `parts` with "/" after removing every leading and trailing "/" from each part, leaving out the parts that become empty.""", ref=r"""
def join_path(parts: list[str]) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))
""", cases=[([["usr/", "/local", "bin"]], "usr/local/bin"), ([[]], ""), ([["/", "a"]], "a"), ([["a//", "//b//"]], "a/b"), ([["x/y", "z"]], "x/y/z")]),
    dict(split="train", difficulty="medium", task=r"""returns True if the characters of `s` can be rearranged to form a palindrome (case-sensitive; every character counts, spaces included), and False otherwise.""", ref=r"""
def can_form_palindrome(s: str) -> bool:
    from collections import Counter
    return sum(n % 2 for n in Counter(s).values()) <= 1
""", cases=[(["carrace"], True), (["abc"], False), ([""], True), (["aabb"], True), (["aab"], True), (["ab"], False), (["Aa"], False), (["a a"], True)]),
    dict(split="train", difficulty="hard", task=r"""returns the longest word of `words` that can be spelled with the letters of `letters`, using each letter at most as many times as it occurs in `letters` (case-sensitive); among equally long words the earliest one wins, and "" is returned if no word can be spelled.""", ref=r"""
def longest_spellable_word(words: list[str], letters: str) -> str:
    from collections import Counter
    have = Counter(letters)
    best = ""
    for w in words:
        if len(w) > len(best) and not Counter(w) - have:
            best = w
    return best
""", cases=[([["cat", "tack", "act", "attack"], "catk"], "tack"), ([["aa", "a"], "a"], "a"), ([[], "abc"], ""), ([["xyz"], "abc"], ""), ([["ab", "ba", "abc"], "bax"], "ab"), ([["Ab"], "ab"], ""), ([["", "b"], "b"], "b")]),
    dict(split="train", difficulty="easy", task=r"""returns `s` with the first occurrence of the non-empty string `sub` removed (`s` unchanged if `sub` does not occur in it).""", ref=r"""
def remove_first_occurrence(s: str, sub: str) -> str:
    return s.replace(sub, "", 1)
""", cases=[(["banana", "an"], "bana"), (["hello", "xyz"], "hello"), (["aaa", "a"], "aa"), (["", "a"], ""), (["abcabc", "abc"], "abc")]),
    dict(split="train", difficulty="easy", task=r"""returns the possessive form of the non-empty `name`: `name` followed by "'" if it ends with "s" or "S", and by "'s" otherwise.""", ref=r"""
def possessive(name: str) -> str:
    return name + ("'" if name[-1] in "sS" else "'s")
""", cases=[(["Anna"], "Anna's"), (["James"], "James'"), (["BOSS"], "BOSS'"), (["Al"], "Al's"), (["s"], "s'"), (["Sam"], "Sam's")]),
    dict(split="train", difficulty="medium", task=r"""converts the letters of `s` to the digits of a phone keypad (a, b, c -> 2; d, e, f -> 3; g, h, i -> 4; j, k, l -> 5; m, n, o -> 6; p, q, r, s -> 7; t, u, v -> 8; w, x, y, z -> 9), ignoring case; every other character is kept as it is.""", ref=r"""
def phone_keypad(s: str) -> str:
    keys = {"2": "abc", "3": "def", "4": "ghi", "5": "jkl", "6": "mno", "7": "pqrs", "8": "tuv", "9": "wxyz"}
    table = {c: d for d, letters in keys.items() for c in letters}
    return "".join(table.get(c, c) for c in s.lower())
""", cases=[(["1-800-FLOWERS"], "1-800-3569377"), ([""], ""), (["abc def"], "222 333"), (["Zz9"], "999"), (["hello"], "43556"), (["pqrstuvwxy"], "7777888999")]),
    dict(split="train", difficulty="easy", task=r"""returns True if some word occurs more than once among the whitespace-separated words of `s`, ignoring case, and False otherwise.""", ref=r"""
def has_repeated_word(s: str) -> bool:
    words = s.lower().split()
    return len(set(words)) < len(words)
""", cases=[(["the cat saw The dog"], True), (["all words differ"], False), ([""], False), (["a a"], True), (["Aa aA"], True), (["ab ba"], False)]),
    dict(split="train", difficulty="hard", task=r"""returns, for each word of `words` (distinct non-empty words, none of them a prefix of another), the shortest prefix of that word that is not a prefix of any other word in the list, in the same order as `words`.""", ref=r"""
def unique_prefixes(words: list[str]) -> list[str]:
    out = []
    for w in words:
        n = 1
        while any(o != w and o.startswith(w[:n]) for o in words):
            n += 1
        out.append(w[:n])
    return out
""", cases=[([["dog", "dove", "cat"]], ["dog", "dov", "c"]), ([["apple"]], ["a"]), ([[]], []), ([["ab", "ac", "b"]], ["ab", "ac", "b"]), ([["zebra", "zero", "zone"]], ["zeb", "zer", "zo"])]),
    dict(split="train", difficulty="easy", task=r"""returns the host part of the URL `url`: the text after "://" (or from the start if `url` has no "://") up to, but not including, the next "/" (or to the end).""", ref=r"""
def url_host(url: str) -> str:
    if "://" in url:
        url = url.partition("://")[2]
    return url.partition("/")[0]
""", cases=[(["https://www.example.com/path/page"], "www.example.com"), (["example.org"], "example.org"), (["ftp://files.net"], "files.net"), (["localhost:8080/api"], "localhost:8080"), ([""], ""), (["http://a.b/c://d"], "a.b")]),
    dict(split="train", difficulty="medium", task=r"""returns `text` with the first letter of each sentence turned into upper case, where a sentence starts at the beginning of `text` and after every ".", "!" or "?" (its first letter is the first letter found after that point, skipping spaces, digits and other characters); nothing else changes.""", ref=r"""
def capitalize_sentences(text: str) -> str:
    out = []
    start = True
    for c in text:
        if start and c.isalpha():
            c = c.upper()
            start = False
        elif c in ".!?":
            start = True
        out.append(c)
    return "".join(out)
""", cases=[(["hello. how are you? fine!  ok"], "Hello. How are you? Fine!  Ok"), ([""], ""), (["already Fine."], "Already Fine."), (["3 cats. 2 dogs"], "3 Cats. 2 Dogs"), (["e.g. this"], "E.G. This")]),
    dict(split="train", difficulty="easy", task=r"""returns the non-empty string `s` with the character `ch` added at its start if it does not already start with `ch`, and then at its end if it does not already end with `ch`.""", ref=r"""
def ensure_wrapped(s: str, ch: str) -> str:
    if not s.startswith(ch):
        s = ch + s
    if not s.endswith(ch):
        s = s + ch
    return s
""", cases=[(["path/to", "/"], "/path/to/"), (["/abs", "/"], "/abs/"), (["dir/", "/"], "/dir/"), (["/", "/"], "/"), (["*bold*", "*"], "*bold*"), (["x", "|"], "|x|")]),
    dict(split="train", difficulty="easy", task=r"""returns `text` with `n` spaces added at the start of every line that is not empty (lines are separated by "\n"; empty lines stay empty).""", ref=r"""
def indent_block(text: str, n: int) -> str:
    return "\n".join(" " * n + line if line else line for line in text.split("\n"))
""", cases=[(["def f():\n    pass", 4], "    def f():\n        pass"), (["a\n\nb", 2], "  a\n\n  b"), (["", 3], ""), (["x", 0], "x"), (["one\ntwo", 1], " one\n two")]),
    dict(split="train", difficulty="medium", task=r"""takes the digits of `s` (ignoring every other character) and, if there are exactly 10 of them, returns them formatted as "(XXX) XXX-XXXX"; otherwise it returns "".""", ref=r"""
def format_phone(s: str) -> str:
    d = "".join(c for c in s if c.isdigit())
    if len(d) != 10:
        return ""
    return f"({d[:3]}) {d[3:6]}-{d[6:]}"
""", cases=[(["555.123.4567"], "(555) 123-4567"), (["12345"], ""), (["(212) 555 0100"], "(212) 555-0100"), ([""], ""), (["12345678901"], ""), (["a1b2c3d4e5f6g7h8i9j0"], "(123) 456-7890"), (["123456789"], "")]),
    dict(split="train", difficulty="medium", task=r"""formats an amount of `cents` as dollars: "$", the whole dollars (no thousands separators), a dot and exactly two digits of cents, with a "-" before the "$" for a negative amount (so -105 gives "-$1.05").""", ref=r"""
def money_format(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars}.{rest:02d}"
""", cases=[([12345], "$123.45"), ([-105], "-$1.05"), ([0], "$0.00"), ([7], "$0.07"), ([100], "$1.00"), ([-1], "-$0.01"), ([99], "$0.99"), ([123456789], "$1234567.89")]),
    dict(split="train", difficulty="easy", task=r"""returns `s` wrapped in double quotes if it contains a space character, and `s` unchanged otherwise.""", ref=r"""
def quote_if_space(s: str) -> str:
    return f'"{s}"' if " " in s else s
""", cases=[(["my file.txt"], '"my file.txt"'), (["file.txt"], "file.txt"), ([""], ""), ([" "], '" "'), (["a\tb"], "a\tb")]),
    dict(split="train", difficulty="hard", task=r"""numbers the lines of an outline: the level of each line of `lines` is its number of leading spaces divided by 2 (a line is at most one level deeper than the line before it, and the first line is at level 0), and each line is returned stripped and prefixed with its number and a space, where numbers look like "1", "1.1", "1.2", "2", "2.1", "2.1.1" and a deeper level restarts at 1 under each new parent.""", ref=r"""
def number_outline(lines: list[str]) -> list[str]:
    counters = []
    out = []
    for line in lines:
        level = (len(line) - len(line.lstrip(" "))) // 2
        counters = counters[: level + 1]
        while len(counters) <= level:
            counters.append(0)
        counters[level] += 1
        out.append(".".join(map(str, counters)) + " " + line.strip())
    return out
""", cases=[([["Intro", "  Goals", "  Scope", "Body", "  Part", "    Detail"]], ["1 Intro", "1.1 Goals", "1.2 Scope", "2 Body", "2.1 Part", "2.1.1 Detail"]), ([[]], []), ([["a", "b", "c"]], ["1 a", "2 b", "3 c"]), ([["x", "  y", "    z", "w"]], ["1 x", "1.1 y", "1.1.1 z", "2 w"]), ([["top", "  sub", "top2", "  sub2"]], ["1 top", "1.1 sub", "2 top2", "2.1 sub2"])]),
    dict(split="train", difficulty="easy", task=r"""parses the point `s`, written as "(x, y)" with integers x and y (possibly negative, possibly with extra spaces around them or around the whole point), and returns `[x, y]`.""", ref=r"""
def parse_coordinate(s: str) -> list[int]:
    x, y = s.strip().strip("()").split(",")
    return [int(x), int(y)]
""", cases=[(["(3, -4)"], [3, -4]), (["(0,0)"], [0, 0]), (["( 12 , 7 )"], [12, 7]), (["(-1, -1)"], [-1, -1]), ([" (100,-250) "], [100, -250])]),
    dict(split="train", difficulty="easy", task=r"""joins the strings of `words` with single spaces, turns the first character of the result into upper case and adds a "." at the end ("" for an empty list).""", ref=r"""
def make_sentence(words: list[str]) -> str:
    if not words:
        return ""
    s = " ".join(words)
    return s[0].upper() + s[1:] + "."
""", cases=[([["the", "cat", "sat"]], "The cat sat."), ([[]], ""), ([["hi"]], "Hi."), ([["Already", "Big"]], "Already Big."), ([["x", "Y"]], "X Y.")]),
    dict(split="train", difficulty="medium", task=r"""splits `text` into sentences: every ".", "!" or "?" ends a sentence and stays with it, each sentence is stripped of surrounding whitespace, and text after the last mark becomes a final sentence unless it is blank.""", ref=r"""
def split_sentences(text: str) -> list[str]:
    out, cur = [], ""
    for c in text:
        cur += c
        if c in ".!?":
            out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out
""", cases=[(["Hi there. How are you? Great!"], ["Hi there.", "How are you?", "Great!"]), ([""], []), (["no end"], ["no end"]), (["One. two "], ["One.", "two"]), (["A!B?"], ["A!", "B?"]), (["  "], [])]),
    dict(split="train", difficulty="medium", task=r"""expands `s`, a comma-separated list of non-negative integers and inclusive ranges "a-b" (with a <= b, no spaces), into the list of all the integers in order ([] for an empty string).""", ref=r"""
def expand_ranges(s: str) -> list[int]:
    out = []
    for part in s.split(","):
        if "-" in part:
            a, b = map(int, part.split("-"))
            out.extend(range(a, b + 1))
        elif part:
            out.append(int(part))
    return out
""", cases=[(["1-3,5,7-8"], [1, 2, 3, 5, 7, 8]), ([""], []), (["4"], [4]), (["2-2"], [2]), (["0-1,10"], [0, 1, 10]), (["5,3"], [5, 3])]),
    dict(split="train", difficulty="easy", task=r"""returns a string of `n` characters that are all "0" except for a "1" at index `i` (0 <= `i` < `n`).""", ref=r"""
def one_hot(n: int, i: int) -> str:
    return "0" * i + "1" + "0" * (n - i - 1)
""", cases=[([5, 2], "00100"), ([1, 0], "1"), ([3, 0], "100"), ([3, 2], "001"), ([6, 4], "000010")]),
    dict(split="train", difficulty="medium", task=r"""returns True if `s` is a valid ISBN-10: exactly 10 characters, the first 9 of them digits and the last a digit or "X" (worth 10), such that the sum of each character's value times its weight (10 for the first character, 9 for the second, ..., 1 for the last) is divisible by 11; otherwise False.""", ref=r"""
def is_valid_isbn10(s: str) -> bool:
    if len(s) != 10 or not s[:9].isdigit() or not (s[9].isdigit() or s[9] == "X"):
        return False
    values = [int(c) for c in s[:9]] + [10 if s[9] == "X" else int(s[9])]
    return sum((10 - i) * v for i, v in enumerate(values)) % 11 == 0
""", cases=[(["0306406152"], True), (["0306406153"], False), (["080442957X"], True), (["08044295X7"], False), (["030640615"], False), (["03064061522"], False), ([""], False), (["0-306-40615-2"], False), (["123456789X"], True), (["0000000000"], True), (["X000000000"], False), (["030640615A"], False)]),
    dict(split="train", difficulty="easy", task=r"""increases the last number of the version string `v` (non-negative integers separated by dots) by one and returns the new version string, so "1.2.9" becomes "1.2.10".""", ref=r"""
def bump_patch(v: str) -> str:
    parts = v.split(".")
    parts[-1] = str(int(parts[-1]) + 1)
    return ".".join(parts)
""", cases=[(["1.2.9"], "1.2.10"), (["0.0.0"], "0.0.1"), (["5"], "6"), (["2.19"], "2.20"), (["10.4.99"], "10.4.100")]),
    dict(split="train", difficulty="easy", task=r"""returns True if the line `line` is empty, contains only whitespace, or has "#" as its first character that is not whitespace, and False otherwise.""", ref=r"""
def is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return s == "" or s.startswith("#")
""", cases=[(["   # note"], True), (["x = 1  # set"], False), ([""], True), (["  \t "], True), (["#"], True), (["print('#')"], False)]),
]
