"""The problem bank's tuning split (bank:tune): starter-level problems, each mapping onto one familiar
Python idiom or builtin (len, sum, max, min, sorted, set, a str or dict method, a slice, a comprehension,
zip, enumerate, range), stated plainly, at the level of bank_starter.py's held-out problems, so that the
embedded student's pass rate on them has something to move. A recipe is tuned on them (`bench/learning.py
--sets tune`), never on the held-out sets; no split-named training source (bank:train) holds them, and
data/problems/nearest.py lists each one's nearest held-out problem (a variant of one would tune on the
held-out set: is_alphanumeric, a variant of the held-out is_all_letters, and square_each, of double_list,
were left out for that). Checked by data/problems/bank_check.py."""
PROBLEMS = [
    # ================================================================== strings
    dict(split="tune", difficulty="easy", task="returns every other character of `s`, starting with the first one: the characters at the indices 0, 2, 4, ... joined into one string (\"\" for an empty string).", ref="""
def every_other_char(s: str) -> str:
    return s[::2]
""", cases=[(["abcdef"], "ace"), (["hello"], "hlo"), ([""], ""), (["a"], "a"), (["ab"], "a"), (["123456789"], "13579")]),
    dict(split="tune", difficulty="easy", task="returns the whitespace-separated words of the string `s` as a list of strings, in order ([] when `s` has no words).", ref="""
def split_words(s: str) -> list[str]:
    return s.split()
""", cases=[(["hello world"], ["hello", "world"]), (["  a  b "], ["a", "b"]), ([""], []), (["   "], []), (["one"], ["one"]), (["tab\tsep\nline"], ["tab", "sep", "line"])]),
    dict(split="tune", difficulty="easy", task="returns the string `s` with every space character \" \" replaced by an underscore \"_\".", ref="""
def spaces_to_underscores(s: str) -> str:
    return s.replace(" ", "_")
""", cases=[(["hello world"], "hello_world"), (["abc"], "abc"), ([""], ""), (["a b c"], "a_b_c"), (["  x "], "__x_"), (["my file name.txt"], "my_file_name.txt")]),
    dict(split="tune", difficulty="easy", task="returns the list of every index at which the character `c` occurs in the string `s`, in increasing order ([] if `c` does not occur in `s`).", ref="""
def char_positions(s: str, c: str) -> list[int]:
    return [i for i, ch in enumerate(s) if ch == c]
""", cases=[(["banana", "a"], [1, 3, 5]), (["hello", "l"], [2, 3]), (["hello", "z"], []), (["", "a"], []), (["aaa", "a"], [0, 1, 2]), (["Abba", "a"], [3])]),
    dict(split="tune", difficulty="easy", task="returns the index of the last occurrence of the character `c` in the string `s`, or -1 if `c` does not occur in `s`.", ref="""
def last_index_of_char(s: str, c: str) -> int:
    return s.rfind(c)
""", cases=[(["hello", "l"], 3), (["banana", "a"], 5), (["banana", "b"], 0), (["abc", "z"], -1), (["", "a"], -1), (["a-b-c", "-"], 3)]),
    dict(split="tune", difficulty="easy", task="returns the sum of the character codes (as given by `ord`) of all the characters of the string `s` (0 for an empty string).", ref="""
def code_sum(s: str) -> int:
    return sum(ord(ch) for ch in s)
""", cases=[(["A"], 65), (["ab"], 195), ([""], 0), (["Hi"], 177), (["  "], 64), (["abc"], 294)]),
    dict(split="tune", difficulty="easy", task="returns the string `s` without the double-quote characters `\"` at its start and at its end; double quotes inside `s` are kept.", ref="""
def strip_quotes(s: str) -> str:
    return s.strip('"')
""", cases=[(['"hello"'], "hello"), (["hi"], "hi"), (['""'], ""), (['"a"b"'], 'a"b'), (['"only start'], "only start"), ([""], ""), (['""x""'], "x")]),
    dict(split="tune", difficulty="easy", task="returns the digit string `s` without the \"0\" characters at its start (\"\" if `s` is made only of zeros); zeros after the first other digit are kept.", ref="""
def remove_leading_zeros(s: str) -> str:
    return s.lstrip("0")
""", cases=[(["007"], "7"), (["100"], "100"), (["000"], ""), (["5"], "5"), (["0102"], "102"), ([""], ""), (["00250"], "250")]),
    dict(split="tune", difficulty="easy", task="splits the non-empty string `s` at every comma \",\" and returns the list of the pieces, each with the whitespace at its start and its end removed, in order.", ref="""
def split_and_strip(s: str) -> list[str]:
    return [part.strip() for part in s.split(",")]
""", cases=[(["a, b, c"], ["a", "b", "c"]), (["x"], ["x"]), ([" one ,two "], ["one", "two"]), (["a,,b"], ["a", "", "b"]), (["red, green ,  blue"], ["red", "green", "blue"]), (["new york, paris"], ["new york", "paris"])]),
    dict(split="tune", difficulty="easy", task="returns the part of the string `s` that comes after the first occurrence of the non-empty string `sep` (\"\" if `sep` does not occur in `s`).", ref="""
def text_after(s: str, sep: str) -> str:
    return s.partition(sep)[2]
""", cases=[(["a:b:c", ":"], "b:c"), (["hello", "x"], ""), (["name: Bob", ": "], "Bob"), (["end.", "."], ""), (["2024-01-05", "-"], "01-05"), (["one two three", " "], "two three")]),
    dict(split="tune", difficulty="easy", task="returns how many of the whitespace-separated words of the string `s` start with the character `letter` (case-sensitive).", ref="""
def count_words_starting_with(s: str, letter: str) -> int:
    return sum(1 for word in s.split() if word.startswith(letter))
""", cases=[(["the cat took the train", "t"], 4), (["apple banana", "c"], 0), (["", "a"], 0), (["Sun sea sand", "s"], 2), (["a", "a"], 1), (["big blue bus", "b"], 3)]),
    dict(split="tune", difficulty="easy", task="returns True if the string `s` is empty or contains only whitespace (spaces, tabs, newlines), and False otherwise.", ref="""
def is_blank(s: str) -> bool:
    return s.strip() == ""
""", cases=[([""], True), (["   "], True), (["\t\n "], True), (["a"], False), ([" hi "], False), (["."], False)]),
    dict(split="tune", difficulty="easy", task="returns the string whose characters have, in order, the character codes (Unicode code points) in the list `codes` (\"\" for an empty list).", ref="""
def codes_to_text(codes: list[int]) -> str:
    return "".join(chr(c) for c in codes)
""", cases=[([[72, 105]], "Hi"), ([[]], ""), ([[97, 98, 99]], "abc"), ([[65]], "A"), ([[49, 32, 50]], "1 2"), ([[33, 33]], "!!")]),
    dict(split="tune", difficulty="easy", task="returns the position of the lower-case letter `c` in the English alphabet: 1 for \"a\", 2 for \"b\", and so on up to 26 for \"z\".", ref="""
def alphabet_position(c: str) -> int:
    return ord(c) - ord("a") + 1
""", cases=[(["a"], 1), (["b"], 2), (["z"], 26), (["m"], 13), (["e"], 5), (["x"], 24)]),
    dict(split="tune", difficulty="easy", task="returns the lower-case letter that comes right after the lower-case letter `c` in the alphabet, where \"z\" is followed by \"a\" again (so \"a\" gives \"b\" and \"z\" gives \"a\").", ref="""
def next_letter(c: str) -> str:
    if c == "z":
        return "a"
    return chr(ord(c) + 1)
""", cases=[(["a"], "b"), (["z"], "a"), (["m"], "n"), (["y"], "z"), (["q"], "r"), (["h"], "i")]),
    dict(split="tune", difficulty="easy", task="returns the characters of the string `s` from index `start` up to but not including index `end` (0 <= `start` <= `end` <= len(s)).", ref="""
def slice_between(s: str, start: int, end: int) -> str:
    return s[start:end]
""", cases=[(["hello", 1, 3], "el"), (["hello", 0, 5], "hello"), (["hello", 2, 2], ""), (["", 0, 0], ""), (["Python", 2, 6], "thon"), (["abcdef", 0, 1], "a")]),
    dict(split="tune", difficulty="easy", task="returns the string `s` unchanged if it has at most `n` characters, and otherwise its first `n` characters followed by \"...\".", ref="""
def shorten(s: str, n: int) -> str:
    if len(s) <= n:
        return s
    return s[:n] + "..."
""", cases=[(["hello world", 5], "hello..."), (["hi", 5], "hi"), (["abc", 3], "abc"), (["abcd", 3], "abc..."), (["", 2], ""), (["Python", 0], "...")]),
    dict(split="tune", difficulty="easy", task="returns True if every character of the string `s` occurs in the string `allowed`, and False otherwise (True for an empty `s`).", ref="""
def uses_only(s: str, allowed: str) -> bool:
    return all(ch in allowed for ch in s)
""", cases=[(["abba", "ab"], True), (["abc", "ab"], False), (["", "xyz"], True), (["101", "01"], True), (["hello", "helo"], True), (["Hello", "helo"], False)]),
    dict(split="tune", difficulty="easy", task="returns True if each of the vowels a, e, i, o and u occurs at least once in the string `s`, in upper or lower case, and False otherwise.", ref="""
def has_all_vowels(s: str) -> bool:
    return all(v in s.lower() for v in "aeiou")
""", cases=[(["education"], True), (["hello"], False), ([""], False), (["AEIOU"], True), (["sequoia"], True), (["aeio"], False), (["Unequal Bio"], True)]),
    dict(split="tune", difficulty="easy", task="returns how many of the whitespace-separated words of the string `s` are equal to `word` (whole words only, case-sensitive).", ref="""
def count_word(s: str, word: str) -> int:
    return s.split().count(word)
""", cases=[(["the cat and the dog", "the"], 2), (["concatenate cat", "cat"], 1), (["", "a"], 0), (["The the THE", "the"], 1), (["a a a", "a"], 3), (["hi", "hello"], 0)]),
    dict(split="tune", difficulty="easy", task="returns the character of the non-empty string `s` with the largest character code, the one that `max` picks (so \"b\" beats \"a\", and lower-case letters beat upper-case ones).", ref="""
def largest_char(s: str) -> str:
    return max(s)
""", cases=[(["hello"], "o"), (["abc"], "c"), (["Zebra"], "r"), (["a"], "a"), (["123"], "3"), (["AZ"], "Z")]),
    dict(split="tune", difficulty="easy", task="returns how many characters of the DNA strand `s`, a string of the letters \"A\", \"C\", \"G\" and \"T\", are \"G\" or \"C\".", ref="""
def gc_count(s: str) -> int:
    return s.count("G") + s.count("C")
""", cases=[(["GATTACA"], 2), (["AAAA"], 0), ([""], 0), (["GGGC"], 4), (["CCAT"], 2), (["ACGTGG"], 4)]),
    dict(split="tune", difficulty="easy", task="returns the DNA strand `s` transcribed to RNA: every \"T\" is replaced by \"U\" and the other letters stay as they are.", ref="""
def dna_to_rna(s: str) -> str:
    return s.replace("T", "U")
""", cases=[(["GATTACA"], "GAUUACA"), (["AAAA"], "AAAA"), ([""], ""), (["TTT"], "UUU"), (["ACGT"], "ACGU"), (["CGTA"], "CGUA")]),
    dict(split="tune", difficulty="easy", task="returns True if the string `s` contains an even number of double-quote characters `\"` (zero counts as even), and False otherwise.", ref="""
def quotes_balanced(s: str) -> bool:
    return s.count('"') % 2 == 0
""", cases=[(['say "hi"'], True), (['a "b'], False), ([""], True), (['"""'], False), (["no quotes"], True), (['""""'], True), (['"a" "b" "'], False)]),
    dict(split="tune", difficulty="easy", task="returns a bulleted list as one string: a line \"- <item>\" for each string of `items`, in order, with the lines joined by newline characters \"\\n\" (\"\" for an empty list).", ref="""
def bullet_list(items: list[str]) -> str:
    return "\\n".join("- " + item for item in items)
""", cases=[([["milk", "eggs"]], "- milk\n- eggs"), ([[]], ""), ([["one"]], "- one"), ([["a", "b", "c"]], "- a\n- b\n- c"), ([["buy bread", "call mom"]], "- buy bread\n- call mom")]),
    dict(split="tune", difficulty="easy", task="returns True if the string `a` is the string `b` written backwards, and False otherwise.", ref="""
def is_reverse_of(a: str, b: str) -> bool:
    return a == b[::-1]
""", cases=[(["olleh", "hello"], True), (["abc", "abc"], False), (["", ""], True), (["ab", "ba"], True), (["abc", "cb"], False), (["racecar", "racecar"], True), (["ca", "abc"], False)]),
    dict(split="tune", difficulty="easy", task="returns the string `s` with its two halves swapped: the first half is the first len(s) // 2 characters of `s`, the second half is the rest, and the result is the second half followed by the first half.", ref="""
def swap_halves(s: str) -> str:
    half = len(s) // 2
    return s[half:] + s[:half]
""", cases=[(["abcd"], "cdab"), (["hello"], "llohe"), ([""], ""), (["a"], "a"), (["ab"], "ba"), (["123456"], "456123")]),
    dict(split="tune", difficulty="easy", task="returns the string `inner` with the string `outer` added both before it and after it (so \"*\" and \"hi\" give \"*hi*\").", ref="""
def sandwich(outer: str, inner: str) -> str:
    return outer + inner + outer
""", cases=[(["*", "hi"], "*hi*"), (["--", "x"], "--x--"), (["", "abc"], "abc"), (["ab", ""], "abab"), (["'", "quote"], "'quote'"), (["<>", "tag"], "<>tag<>")]),
    dict(split="tune", difficulty="easy", task="splits the setting `s`, written as \"key=value\", at its first \"=\" and returns the list `[key, value]`; the value may itself contain further \"=\" characters, which stay in it.", ref="""
def split_key_value(s: str) -> list[str]:
    return s.split("=", 1)
""", cases=[(["name=Bob"], ["name", "Bob"]), (["a=b=c"], ["a", "b=c"]), (["x="], ["x", ""]), (["=5"], ["", "5"]), (["color=dark blue"], ["color", "dark blue"]), (["eq=1+1=2"], ["eq", "1+1=2"])]),
    dict(split="tune", difficulty="easy", task="returns the string `s` without the newline characters \"\\n\" at its end; everything else, including other whitespace and newlines inside `s`, is kept.", ref="""
def chomp(s: str) -> str:
    return s.rstrip("\\n")
""", cases=[(["hello\n"], "hello"), (["hi"], "hi"), (["a\n\n"], "a"), (["\n"], ""), (["x \n"], "x "), (["line1\nline2\n"], "line1\nline2"), ([""], "")]),
    dict(split="tune", difficulty="easy", task="returns the last line of `text`, where lines are separated by newline characters \"\\n\" (all of `text` if it has no newline, and \"\" if `text` ends with a newline).", ref="""
def last_line(text: str) -> str:
    return text.split("\\n")[-1]
""", cases=[(["a\nb\nc"], "c"), (["one"], "one"), (["x\n"], ""), (["first\nsecond"], "second"), ([""], ""), (["1\n2\n3\n4"], "4")]),
    dict(split="tune", difficulty="easy", task="returns the last part of the file path `path`: the text after its last \"/\" (all of `path` if it contains no \"/\").", ref="""
def path_basename(path: str) -> str:
    return path.split("/")[-1]
""", cases=[(["home/user/notes.txt"], "notes.txt"), (["file.py"], "file.py"), (["/usr/bin/"], ""), (["a/b"], "b"), (["/root"], "root"), (["docs/2024/report.pdf"], "report.pdf")]),
    dict(split="tune", difficulty="easy", task="returns True if `filename` ends with a dot followed by `ext` (so \"photo.jpg\" has the extension \"jpg\"), case-sensitive, and False otherwise.", ref="""
def has_extension(filename: str, ext: str) -> bool:
    return filename.endswith("." + ext)
""", cases=[(["photo.jpg", "jpg"], True), (["photo.png", "jpg"], False), (["notes.txt.bak", "txt"], False), (["archive.tar.gz", "gz"], True), (["jpg", "jpg"], False), (["a.JPG", "jpg"], False), (["myjpg", "jpg"], False)]),
    dict(split="tune", difficulty="easy", task="returns the number of characters of the string `a` minus the number of characters of the string `b` (negative when `b` is longer).", ref="""
def length_difference(a: str, b: str) -> int:
    return len(a) - len(b)
""", cases=[(["hello", "hi"], 3), (["hi", "hello"], -3), (["abc", "xyz"], 0), (["", ""], 0), (["", "abcd"], -4), (["a b", "ab"], 1)]),
    dict(split="tune", difficulty="easy", task="returns how many places apart the lower-case letters `a` and `b` are in the alphabet (0 for the same letter; the order of `a` and `b` does not matter, so \"a\" and \"c\" are 2 apart either way).", ref="""
def letter_distance(a: str, b: str) -> int:
    return abs(ord(a) - ord(b))
""", cases=[(["a", "c"], 2), (["c", "a"], 2), (["m", "m"], 0), (["a", "z"], 25), (["x", "b"], 22), (["d", "e"], 1)]),
    dict(split="tune", difficulty="easy", task="returns `[before, after]`: the first `i` characters of the string `s` and the rest of `s` (0 <= `i` <= len(s)).", ref="""
def cut_at(s: str, i: int) -> list[str]:
    return [s[:i], s[i:]]
""", cases=[(["hello", 2], ["he", "llo"]), (["hello", 0], ["", "hello"]), (["hello", 5], ["hello", ""]), (["", 0], ["", ""]), (["abcdef", 3], ["abc", "def"]), (["xy", 1], ["x", "y"])]),
    dict(split="tune", difficulty="easy", task="returns the whitespace-separated words of the string `s` without the last one, joined by single spaces (\"\" if `s` has at most one word).", ref="""
def remove_last_word(s: str) -> str:
    return " ".join(s.split()[:-1])
""", cases=[(["hello big world"], "hello big"), (["one"], ""), ([""], ""), (["a b"], "a"), (["  the   quick fox "], "the quick"), (["1 2 3 4"], "1 2 3")]),
    dict(split="tune", difficulty="easy", task="returns the number of characters of the last whitespace-separated word of the string `s` (0 if `s` has no words).", ref="""
def last_word_length(s: str) -> int:
    words = s.split()
    return len(words[-1]) if words else 0
""", cases=[(["Hello World"], 5), (["fly me   to the moon  "], 4), ([""], 0), (["   "], 0), (["a"], 1), (["one three"], 5)]),
    dict(split="tune", difficulty="easy", task="returns True if the string `s` contains exactly one whitespace-separated word (whitespace around it is allowed), and False otherwise.", ref="""
def is_single_word(s: str) -> bool:
    return len(s.split()) == 1
""", cases=[(["hello"], True), ([" hi "], True), (["two words"], False), ([""], False), (["   "], False), (["a b c"], False), (["x"], True)]),
    dict(split="tune", difficulty="easy", task="returns True if the string `s` starts with the string `left` and ends with the string `right`, and False otherwise.", ref="""
def wrapped_with(s: str, left: str, right: str) -> bool:
    return s.startswith(left) and s.endswith(right)
""", cases=[(["(hi)", "(", ")"], True), (["(hi", "(", ")"], False), (["hi)", "(", ")"], False), (["[x]", "(", ")"], False), (["<b>bold</b>", "<b>", "</b>"], True), (["'a'", "'", "'"], True)]),
    dict(split="tune", difficulty="easy", task="returns the characters of the string `s` that occur in the string `allowed`, in their original order, joined into one string.", ref="""
def keep_only(s: str, allowed: str) -> str:
    return "".join(ch for ch in s if ch in allowed)
""", cases=[(["hello world", "lo"], "llool"), (["abc", "xyz"], ""), (["", "abc"], ""), (["banana", "an"], "anana"), (["1-2-3", "0123456789"], "123"), (["abc", "abc"], "abc")]),
    dict(split="tune", difficulty="easy", task="returns the list of all the two-character pieces of the string `s` that start at the indices 0, 1, 2, ..., in order ([] when `s` has fewer than two characters).", ref="""
def bigrams(s: str) -> list[str]:
    return [s[i:i + 2] for i in range(len(s) - 1)]
""", cases=[(["abcd"], ["ab", "bc", "cd"]), (["hi"], ["hi"]), (["a"], []), ([""], []), (["aaa"], ["aa", "aa"]), (["hello"], ["he", "el", "ll", "lo"])]),
    dict(split="tune", difficulty="easy", task="returns the integers of the list `nums` written out and separated by a comma and a space (\"\" for an empty list), so [1, 2, 3] gives \"1, 2, 3\".", ref="""
def numbers_to_text(nums: list[int]) -> str:
    return ", ".join(str(n) for n in nums)
""", cases=[([[1, 2, 3]], "1, 2, 3"), ([[]], ""), ([[42]], "42"), ([[-1, 0, 10]], "-1, 0, 10"), ([[7, 7]], "7, 7")]),
    dict(split="tune", difficulty="easy", task="returns True if the string `s` starts with the string `prefix` when upper and lower case are ignored, and False otherwise.", ref="""
def starts_with_ignore_case(s: str, prefix: str) -> bool:
    return s.lower().startswith(prefix.lower())
""", cases=[(["Hello", "he"], True), (["hello", "HE"], True), (["hello", "lo"], False), (["", "a"], False), (["abc", ""], True), (["Python", "PYTHON"], True), (["Py", "Python"], False)]),
    # ================================================================== lists and numbers
    # ------------------------------------------------------------------ comprehensions over a list
    dict(split="tune", difficulty="easy", task="returns a new list in which every number of `nums` (all of them non-negative) is divided by 2 with integer division `//`, which rounds down (so 7 gives 3), in order.", ref="""
def halve_each(nums: list[int]) -> list[int]:
    return [n // 2 for n in nums]
""", cases=[([[4, 7, 10]], [2, 3, 5]), ([[]], []), ([[0, 1]], [0, 0]), ([[9]], [4]), ([[100, 33]], [50, 16]), ([[2, 3]], [1, 1])]),
    dict(split="tune", difficulty="easy", task="returns a new list in which every even number of `nums` is multiplied by 2 and every odd number stays as it is, in order.", ref="""
def double_evens_only(nums: list[int]) -> list[int]:
    return [n * 2 if n % 2 == 0 else n for n in nums]
""", cases=[([[1, 2, 3, 4]], [1, 4, 3, 8]), ([[]], []), ([[0]], [0]), ([[5, 7]], [5, 7]), ([[-2, 6]], [-4, 12]), ([[10, 11]], [20, 11])]),
    dict(split="tune", difficulty="easy", task="returns the squares of the even numbers of `nums`, in their original order (the odd numbers are left out).", ref="""
def squares_of_evens(nums: list[int]) -> list[int]:
    return [n * n for n in nums if n % 2 == 0]
""", cases=[([[1, 2, 3, 4]], [4, 16]), ([[]], []), ([[1, 3]], []), ([[0, -2]], [0, 4]), ([[6]], [36]), ([[5, 10, 15]], [100])]),
    dict(split="tune", difficulty="easy", task="returns the numbers of `nums` that are zero or greater, in their original order (the negative numbers are left out).", ref="""
def keep_non_negative(nums: list[int]) -> list[int]:
    return [n for n in nums if n >= 0]
""", cases=[([[1, -2, 0, 3]], [1, 0, 3]), ([[]], []), ([[-1, -5]], []), ([[0]], [0]), ([[5, -1, 5]], [5, 5]), ([[-1, 2]], [2])]),
    dict(split="tune", difficulty="easy", task="returns a list with, for each number of the non-empty list `nums`, how much smaller it is than the largest number of `nums` (the largest number minus it), in order.", ref="""
def difference_from_max(nums: list[int]) -> list[int]:
    return [max(nums) - n for n in nums]
""", cases=[([[1, 5, 3]], [4, 0, 2]), ([[7]], [0]), ([[2, 2]], [0, 0]), ([[-1, -3]], [0, 2]), ([[0, 10, 5]], [10, 0, 5]), ([[4, 1, 4]], [0, 3, 0])]),
    dict(split="tune", difficulty="easy", task="returns the list of the indices (counted from 0) at which `nums` holds a negative number (below zero), in increasing order.", ref="""
def negative_indices(nums: list[int]) -> list[int]:
    return [i for i, n in enumerate(nums) if n < 0]
""", cases=[([[1, -2, 3, -4]], [1, 3]), ([[]], []), ([[0, 5]], []), ([[-1]], [0]), ([[-3, -3, 0, -1]], [0, 1, 3]), ([[2, 0, -7]], [2])]),
    dict(split="tune", difficulty="easy", task="returns the list of pairs `[a[i], b[i]]` of the items at the same position of the lists `a` and `b`, in order, stopping at the end of the shorter list.", ref="""
def zip_pairs(a: list, b: list) -> list[list]:
    return [[x, y] for x, y in zip(a, b)]
""", cases=[([[1, 2], [3, 4]], [[1, 3], [2, 4]]), ([[], [1]], []), ([[1, 2, 3], ["a"]], [[1, "a"]]), ([["x"], [True, False]], [["x", True]]), ([[5, 6], [7, 8, 9]], [[5, 7], [6, 8]]), ([[0], [0]], [[0, 0]])]),
    dict(split="tune", difficulty="easy", task="returns the list of the first `n` triangular numbers, where the i-th one (counting from 1) is i * (i + 1) // 2: [1, 3, 6, 10, ...] ([] when `n` is 0).", ref="""
def triangle_numbers(n: int) -> list[int]:
    return [i * (i + 1) // 2 for i in range(1, n + 1)]
""", cases=[([0], []), ([1], [1]), ([4], [1, 3, 6, 10]), ([2], [1, 3]), ([6], [1, 3, 6, 10, 15, 21]), ([3], [1, 3, 6])]),
    # ------------------------------------------------------------------ counting, sum, min, max, len
    dict(split="tune", difficulty="easy", task="returns how many times the largest number of the non-empty list `nums` occurs in it.", ref="""
def count_of_max(nums: list[int]) -> int:
    return nums.count(max(nums))
""", cases=[([[1, 3, 3, 2]], 2), ([[5]], 1), ([[2, 2, 2]], 3), ([[-1, -1, -2]], 2), ([[1, 2, 3]], 1), ([[7, 1, 7, 1, 7]], 3)]),
    dict(split="tune", difficulty="easy", task="returns how many items of the list `items` also occur in the list `allowed` (an item that occurs several times in `items` is counted each time).", ref="""
def count_allowed(items: list, allowed: list) -> int:
    return sum(1 for x in items if x in allowed)
""", cases=[([[1, 2, 3, 2], [2, 3]], 3), ([[], [1]], 0), ([[1, 2], []], 0), ([["a", "b", "a"], ["a"]], 2), ([[5, 6], [6, 5, 7]], 2), ([[4], [1, 2]], 0)]),
    dict(split="tune", difficulty="easy", task="returns True if the number 0 occurs in the list `nums` and False otherwise.", ref="""
def contains_zero(nums: list[int]) -> bool:
    return 0 in nums
""", cases=[([[1, 0, 2]], True), ([[]], False), ([[1, 2]], False), ([[0]], True), ([[-1, 1]], False), ([[5, 0, 0]], True)]),
    dict(split="tune", difficulty="easy", task="returns True if the list `items` has an even number of items (0 counts as even) and False otherwise.", ref="""
def has_even_length(items: list) -> bool:
    return len(items) % 2 == 0
""", cases=[([[1, 2]], True), ([[]], True), ([[1]], False), ([[1, 2, 3]], False), ([["a", "b", "c", "d"]], True), ([[0, 0, 0, 0, 0]], False)]),
    dict(split="tune", difficulty="easy", task="returns True if the list `items` has at least `n` items and False otherwise.", ref="""
def has_at_least(items: list, n: int) -> bool:
    return len(items) >= n
""", cases=[([[1, 2, 3], 2], True), ([[1, 2], 2], True), ([[1], 2], False), ([[], 0], True), ([[], 1], False), ([["a", "b"], 3], False)]),
    dict(split="tune", difficulty="easy", task="returns how many numbers of the non-empty list `nums` are strictly greater than its first number.", ref="""
def count_above_first(nums: list[int]) -> int:
    return sum(1 for n in nums if n > nums[0])
""", cases=[([[3, 1, 5, 4]], 2), ([[7]], 0), ([[2, 2, 3]], 1), ([[0, -1, -2, 1]], 1), ([[1, 2, 3, 4]], 3), ([[5, 4, 6, 5, 1]], 1)]),
    dict(split="tune", difficulty="easy", task="returns the smallest number of `nums` that is greater than zero, or None if `nums` has no such number.", ref="""
def smallest_positive(nums: list[int]):
    positives = [n for n in nums if n > 0]
    return min(positives) if positives else None
""", cases=[([[3, -1, 2, 0]], 2), ([[]], None), ([[-5, 0]], None), ([[1, 4]], 1), ([[10]], 10), ([[-1, 7, 3]], 3)]),
    dict(split="tune", difficulty="easy", task="returns True if `x` lies between the smallest and the largest number of the non-empty list `nums`, both included, and False otherwise.", ref="""
def in_list_range(nums: list[int], x: int) -> bool:
    return min(nums) <= x <= max(nums)
""", cases=[([[1, 5, 3], 4], True), ([[1, 5, 3], 1], True), ([[1, 5, 3], 5], True), ([[1, 5, 3], 0], False), ([[1, 5, 3], 6], False), ([[2], 2], True), ([[-4, -1], -5], False)]),
    dict(split="tune", difficulty="easy", task="returns the larger of two sums: the sum of the numbers of the list `a` and the sum of the numbers of the list `b` (an empty list sums to 0).", ref="""
def larger_total(a: list[int], b: list[int]) -> int:
    return max(sum(a), sum(b))
""", cases=[([[1, 2], [4]], 4), ([[5, 5], [1]], 10), ([[], []], 0), ([[], [-3]], 0), ([[-1, -2], [-5]], -3), ([[3], [1, 2]], 3)]),
    dict(split="tune", difficulty="easy", task="returns the sum of the two largest numbers of `nums`, which has at least two numbers (if the largest number occurs twice, both copies count).", ref="""
def sum_of_two_largest(nums: list[int]) -> int:
    return sum(sorted(nums)[-2:])
""", cases=[([[1, 5, 3]], 8), ([[2, 2]], 4), ([[4, 9, 9, 1]], 18), ([[-1, -5, -3]], -4), ([[10, 0]], 10), ([[7, 1, 2, 3]], 10)]),
    dict(split="tune", difficulty="easy", task="returns how much must still be added to the sum of the numbers of `nums` to reach `goal`, that is `goal` minus that sum, or 0 if the sum is already at least `goal`.", ref="""
def missing_to_goal(nums: list[int], goal: int) -> int:
    return max(0, goal - sum(nums))
""", cases=[([[1, 2, 3], 10], 4), ([[], 5], 5), ([[5, 5], 10], 0), ([[20], 10], 0), ([[3, 4], 8], 1), ([[1], 0], 0)]),
    dict(split="tune", difficulty="easy", task="returns True if the sum of the numbers of `nums` is even and False otherwise (an empty list sums to 0, which is even).", ref="""
def is_sum_even(nums: list[int]) -> bool:
    return sum(nums) % 2 == 0
""", cases=[([[1, 2, 3]], True), ([[1]], False), ([[]], True), ([[1, 1, 1]], False), ([[2, 4, -6]], True), ([[5, 4]], False)]),
    dict(split="tune", difficulty="easy", task="returns True if every number of `nums` is divisible by the positive integer `k` (True for an empty list), and False otherwise.", ref="""
def all_multiples_of(nums: list[int], k: int) -> bool:
    return all(n % k == 0 for n in nums)
""", cases=[([[2, 4, 6], 2], True), ([[2, 3], 2], False), ([[], 5], True), ([[9, 3, 0], 3], True), ([[10, 15, 21], 5], False), ([[7], 7], True), ([[1], 2], False)]),
    # ------------------------------------------------------------------ averages and rounding
    dict(split="tune", difficulty="easy", task="returns the average of the numbers of the non-empty list `nums` rounded down to a whole number: their sum divided by how many there are, using integer division `//`.", ref="""
def whole_average(nums: list[int]) -> int:
    return sum(nums) // len(nums)
""", cases=[([[1, 2, 3, 4]], 2), ([[5]], 5), ([[2, 4]], 3), ([[1, 2]], 1), ([[10, 20, 31]], 20), ([[0, 0, 1]], 0)]),
    dict(split="tune", difficulty="easy", task="returns the average of the largest and the smallest number of the non-empty list `nums`, that is (largest + smallest) / 2, as a float.", ref="""
def midrange(nums: list[int]) -> float:
    return (max(nums) + min(nums)) / 2
""", cases=[([[1, 5, 3]], 3.0), ([[4]], 4.0), ([[1, 2]], 1.5), ([[-3, 3, 10]], 3.5), ([[0, 0, 7]], 3.5), ([[-2, -8]], -5.0)]),
    dict(split="tune", difficulty="easy", task="returns the sum of the numbers of the non-empty list `prices`, rounded to 2 decimal places.", ref="""
def price_total(prices: list[float]) -> float:
    return round(sum(prices), 2)
""", cases=[([[0.1, 0.2]], 0.3), ([[1.5, 2.25]], 3.75), ([[1.234, 2.0]], 3.23), ([[9.999]], 10.0), ([[2.5, 2.5, 5.0]], 10.0), ([[0.99, 0.99, 0.99]], 2.97)]),
    dict(split="tune", difficulty="easy", task="returns `price` plus `percent` percent of it, that is `price` + `price` * `percent` / 100, rounded to 2 decimal places.", ref="""
def with_tax(price: float, percent: int) -> float:
    return round(price + price * percent / 100, 2)
""", cases=[([100, 20], 120.0), ([10, 5], 10.5), ([19.99, 7], 21.39), ([50, 0], 50.0), ([0, 15], 0.0), ([2.5, 10], 2.75), ([9.99, 8], 10.79)]),
    dict(split="tune", difficulty="easy", task="returns the volume of a cylinder with radius `r` and height `h` (pi times `r` squared times `h`, using `math.pi`), rounded to 2 decimal places.", ref="""
def cylinder_volume(r: int, h: int) -> float:
    import math
    return round(math.pi * r * r * h, 2)
""", cases=[([1, 1], 3.14), ([2, 3], 37.7), ([0, 5], 0.0), ([3, 2], 56.55), ([1, 10], 31.42), ([5, 1], 78.54)]),
    # ------------------------------------------------------------------ slices and sorting
    dict(split="tune", difficulty="easy", task="returns the items of `items` at the odd positions 1, 3, 5, ... (the second, fourth, sixth item and so on), in order ([] when `items` has fewer than two items).", ref="""
def odd_index_items(items: list) -> list:
    return items[1::2]
""", cases=[([[1, 2, 3, 4, 5]], [2, 4]), ([[]], []), ([["a"]], []), ([["a", "b"]], ["b"]), ([[10, 20, 30, 40, 50, 60]], [20, 40, 60]), ([[0, 1, 0, 1]], [1, 1])]),
    dict(split="tune", difficulty="easy", task="returns the sum of the numbers of `nums` without its first and its last number (0 when `nums` has two numbers or fewer).", ref="""
def sum_of_middle(nums: list[int]) -> int:
    return sum(nums[1:-1])
""", cases=[([[1, 2, 3, 4]], 5), ([[5]], 0), ([[]], 0), ([[1, 2]], 0), ([[10, 20, 30]], 20), ([[1, 2, 3, 4, 5, 6]], 14)]),
    dict(split="tune", difficulty="easy", task="returns the sum of all the numbers of `nums` except the first one (0 when `nums` has fewer than two numbers).", ref="""
def sum_except_first(nums: list[int]) -> int:
    return sum(nums[1:])
""", cases=[([[1, 2, 3]], 5), ([[]], 0), ([[7]], 0), ([[10, -5, 5]], 0), ([[0, 4]], 4), ([[2, 3, 4, 5]], 12)]),
    dict(split="tune", difficulty="easy", task="returns the three items in the middle of the list `items`, which has an odd length of at least 3 (so [1, 2, 3, 4, 5] gives [2, 3, 4]).", ref="""
def middle_three(items: list) -> list:
    m = len(items) // 2
    return items[m - 1:m + 2]
""", cases=[([[1, 2, 3, 4, 5]], [2, 3, 4]), ([[1, 2, 3]], [1, 2, 3]), ([[1, 2, 3, 4, 5, 6, 7]], [3, 4, 5]), ([["a", "b", "c", "d", "e"]], ["b", "c", "d"]), ([[9, 8, 7, 6, 5, 4, 3, 2, 1]], [6, 5, 4]), ([[0, 0, 1, 0, 0]], [0, 1, 0])]),
    dict(split="tune", difficulty="easy", task="returns a copy of the non-empty list `nums` with the first occurrence of its smallest number removed; the other numbers keep their order.", ref="""
def without_min(nums: list[int]) -> list[int]:
    result = list(nums)
    result.remove(min(result))
    return result
""", cases=[([[3, 1, 2]], [3, 2]), ([[5]], []), ([[2, 1, 1]], [2, 1]), ([[4, 5, 6]], [5, 6]), ([[-1, 0, -1]], [0, -1]), ([[7, 7]], [7])]),
    dict(split="tune", difficulty="easy", task="returns a new list in which every number of `nums` has its own index (counted from 0) added to it, so [5, 5, 5] gives [5, 6, 7].", ref="""
def add_index(nums: list[int]) -> list[int]:
    return [n + i for i, n in enumerate(nums)]
""", cases=[([[5, 5, 5]], [5, 6, 7]), ([[]], []), ([[0]], [0]), ([[10, -1]], [10, 0]), ([[3, 2, 1, 0]], [3, 3, 3, 3]), ([[-2, -2]], [-2, -1])]),
    dict(split="tune", difficulty="easy", task="returns the non-negative integers of `nums` sorted by their last decimal digit, smallest last digit first; numbers with the same last digit keep their original order.", ref="""
def sort_by_last_digit(nums: list[int]) -> list[int]:
    return sorted(nums, key=lambda n: n % 10)
""", cases=[([[13, 21, 5]], [21, 13, 5]), ([[]], []), ([[9]], [9]), ([[10, 20, 3]], [10, 20, 3]), ([[19, 5, 31, 40]], [40, 31, 5, 19]), ([[22, 12, 2, 11]], [11, 22, 12, 2])]),
    # ------------------------------------------------------------------ range
    dict(split="tune", difficulty="easy", task="returns the list of the numbers from `start` up to but not including `stop`, going up in steps of the positive integer `step`: start, start + step, start + 2 * step, ... ([] when `start` >= `stop`).", ref="""
def stepped_range(start: int, stop: int, step: int) -> list[int]:
    return list(range(start, stop, step))
""", cases=[([0, 10, 3], [0, 3, 6, 9]), ([1, 2, 1], [1]), ([5, 5, 2], []), ([2, 11, 2], [2, 4, 6, 8, 10]), ([7, 3, 1], []), ([-4, 4, 4], [-4, 0])]),
    dict(split="tune", difficulty="easy", task="returns the list of the integers from `a` to `b`, both included, in increasing order ([] when `a` > `b`).", ref="""
def numbers_from_to(a: int, b: int) -> list[int]:
    return list(range(a, b + 1))
""", cases=[([1, 5], [1, 2, 3, 4, 5]), ([3, 3], [3]), ([5, 2], []), ([-2, 1], [-2, -1, 0, 1]), ([0, 0], [0]), ([10, 12], [10, 11, 12])]),
    dict(split="tune", difficulty="easy", task="returns the even numbers from `a` to `b`, both included, in increasing order ([] if there are none).", ref="""
def evens_between(a: int, b: int) -> list[int]:
    return [n for n in range(a, b + 1) if n % 2 == 0]
""", cases=[([1, 6], [2, 4, 6]), ([3, 3], []), ([2, 2], [2]), ([1, 9], [2, 4, 6, 8]), ([5, 2], []), ([-3, 2], [-2, 0, 2]), ([0, 5], [0, 2, 4])]),
    dict(split="tune", difficulty="easy", task="returns the list of the first `n` odd numbers 1, 3, 5, ... in increasing order ([] when `n` is 0).", ref="""
def first_odds(n: int) -> list[int]:
    return [2 * i + 1 for i in range(n)]
""", cases=[([0], []), ([1], [1]), ([3], [1, 3, 5]), ([5], [1, 3, 5, 7, 9]), ([2], [1, 3]), ([6], [1, 3, 5, 7, 9, 11])]),
    dict(split="tune", difficulty="easy", task="returns the sum of the odd numbers from 1 to `n` (`n` itself included if it is odd; 0 when `n` is 0).", ref="""
def sum_of_odds_up_to(n: int) -> int:
    return sum(range(1, n + 1, 2))
""", cases=[([0], 0), ([1], 1), ([5], 9), ([4], 4), ([10], 25), ([7], 16)]),
    # ------------------------------------------------------------------ integer arithmetic
    dict(split="tune", difficulty="easy", task="returns the tens digit of the non-negative integer `n`, the second digit from the right (0 when `n` is below 10; so 345 gives 4).", ref="""
def tens_digit(n: int) -> int:
    return n // 10 % 10
""", cases=[([345], 4), ([7], 0), ([10], 1), ([99], 9), ([1203], 0), ([56], 5)]),
    dict(split="tune", difficulty="easy", task="returns the smallest multiple of the positive integer `k` that is strictly greater than the non-negative integer `n` (so `n` = 10 and `k` = 5 give 15, not 10).", ref="""
def next_multiple(n: int, k: int) -> int:
    return (n // k + 1) * k
""", cases=[([10, 5], 15), ([7, 5], 10), ([0, 3], 3), ([1, 1], 2), ([14, 7], 21), ([20, 6], 24), ([99, 10], 100)]),
    dict(split="tune", difficulty="easy", task="returns True if the integer `n` is divisible by both `a` and `b` (neither of them is zero), and False otherwise.", ref="""
def divisible_by_both(n: int, a: int, b: int) -> bool:
    return n % a == 0 and n % b == 0
""", cases=[([12, 3, 4], True), ([12, 5, 3], False), ([10, 5, 3], False), ([30, 2, 5], True), ([0, 7, 9], True), ([7, 7, 1], True), ([9, 2, 3], False)]),
    dict(split="tune", difficulty="easy", task="returns how many minutes are left until the next full hour when the clock shows `m` minutes past the hour (`m` is from 0 to 59; 0 gives 0, since the clock already shows a full hour).", ref="""
def minutes_to_next_hour(m: int) -> int:
    return (60 - m) % 60
""", cases=[([0], 0), ([15], 45), ([59], 1), ([30], 30), ([1], 59), ([45], 15)]),
    dict(split="tune", difficulty="easy", task="returns how many seats are still free in a hall with `rows` rows of `per_row` seats each when `taken` of its seats are already taken.", ref="""
def empty_seats(rows: int, per_row: int, taken: int) -> int:
    return rows * per_row - taken
""", cases=[([10, 20, 15], 185), ([1, 1, 0], 1), ([5, 4, 20], 0), ([3, 10, 7], 23), ([0, 5, 0], 0), ([2, 3, 1], 5)]),
    dict(split="tune", difficulty="easy", task="returns the simple interest earned on `principal` dollars at `rate` percent per year for `years` years, which is `principal` * `rate` * `years` / 100, rounded down to a whole number.", ref="""
def simple_interest(principal: int, rate: int, years: int) -> int:
    return principal * rate * years // 100
""", cases=[([1000, 5, 2], 100), ([100, 3, 1], 3), ([250, 4, 3], 30), ([999, 1, 1], 9), ([0, 5, 10], 0), ([500, 0, 4], 0), ([150, 7, 2], 21)]),
    # ================================================================== dicts, sets, tuples and conditions
    # ------------------------------------------------------------------ simple conditions
    dict(split="tune", difficulty="easy", task="returns the string \"even\" if the integer `n` is even and \"odd\" if it is odd.", ref="""
def even_or_odd(n: int) -> str:
    return "even" if n % 2 == 0 else "odd"
""", cases=[([4], "even"), ([7], "odd"), ([0], "even"), ([-3], "odd"), ([9], "odd"), ([10], "even"), ([1], "odd")]),
    dict(split="tune", difficulty="easy", task="returns the price of a ticket for a person aged `age`: 5 for children under 12, 8 for people aged 65 or older, and 10 for everyone else.", ref="""
def ticket_price(age: int) -> int:
    if age < 12:
        return 5
    if age >= 65:
        return 8
    return 10
""", cases=[([5], 5), ([11], 5), ([12], 10), ([30], 10), ([64], 10), ([65], 8), ([80], 8), ([0], 5)]),
    dict(split="tune", difficulty="easy", task="returns \"cold\" if the temperature `t` is below 10, \"hot\" if it is above 25, and \"mild\" otherwise (from 10 to 25, both included).", ref="""
def temperature_word(t: int) -> str:
    if t < 10:
        return "cold"
    if t > 25:
        return "hot"
    return "mild"
""", cases=[([9], "cold"), ([10], "mild"), ([18], "mild"), ([25], "mild"), ([26], "hot"), ([-5], "cold"), ([35], "hot")]),
    dict(split="tune", difficulty="easy", task="returns what a driver should do at a traffic light showing `color`: \"stop\" for \"red\", \"slow down\" for \"yellow\", \"go\" for \"green\", and \"unknown\" for any other string.", ref="""
def traffic_action(color: str) -> str:
    actions = {"red": "stop", "yellow": "slow down", "green": "go"}
    return actions.get(color, "unknown")
""", cases=[(["red"], "stop"), (["yellow"], "slow down"), (["green"], "go"), (["blue"], "unknown"), ([""], "unknown"), (["Red"], "unknown")]),
    dict(split="tune", difficulty="easy", task="returns the status of a battery charged to `percent` percent (0 to 100): \"low\" below 20, \"full\" at exactly 100, and \"ok\" otherwise.", ref="""
def battery_status(percent: int) -> str:
    if percent < 20:
        return "low"
    if percent == 100:
        return "full"
    return "ok"
""", cases=[([0], "low"), ([19], "low"), ([20], "ok"), ([55], "ok"), ([99], "ok"), ([100], "full"), ([21], "ok")]),
    dict(split="tune", difficulty="easy", task="returns the price to pay for an item that costs `price`: members (`is_member` is True) get 5 off, everyone else pays `price` (`price` is at least 5).", ref="""
def member_price(price: int, is_member: bool) -> int:
    return price - 5 if is_member else price
""", cases=[([20, True], 15), ([20, False], 20), ([5, True], 0), ([5, False], 5), ([100, True], 95), ([7, False], 7)]),
    dict(split="tune", difficulty="easy", task="returns the season of month number `month` (1 for January to 12 for December): \"winter\" for 12, 1 and 2, \"spring\" for 3 to 5, \"summer\" for 6 to 8 and \"autumn\" for 9 to 11.", ref="""
def season_of(month: int) -> str:
    if month in (12, 1, 2):
        return "winter"
    if month <= 5:
        return "spring"
    if month <= 8:
        return "summer"
    return "autumn"
""", cases=[([1], "winter"), ([2], "winter"), ([3], "spring"), ([5], "spring"), ([6], "summer"), ([8], "summer"), ([9], "autumn"), ([11], "autumn"), ([12], "winter")]),
    dict(split="tune", difficulty="easy", task="returns \"small\" if the non-negative integer `n` is below 10, \"medium\" if it is from 10 to 99, and \"large\" if it is 100 or more.", ref="""
def number_size(n: int) -> str:
    if n < 10:
        return "small"
    if n < 100:
        return "medium"
    return "large"
""", cases=[([0], "small"), ([9], "small"), ([10], "medium"), ([55], "medium"), ([99], "medium"), ([100], "large"), ([5000], "large")]),
    dict(split="tune", difficulty="easy", task="returns True if `color` is one of the primary colours \"red\", \"yellow\" or \"blue\" (written in lower case), and False otherwise.", ref="""
def is_primary_color(color: str) -> bool:
    return color in {"red", "yellow", "blue"}
""", cases=[(["red"], True), (["yellow"], True), (["blue"], True), (["green"], False), (["Red"], False), ([""], False), (["purple"], False)]),
    # ------------------------------------------------------------------ dicts
    dict(split="tune", difficulty="easy", task="returns True if the dictionary `d` has the key `key` and False otherwise.", ref="""
def has_key(d: dict, key: str) -> bool:
    return key in d
""", cases=[([{"a": 1}, "a"], True), ([{"a": 1}, "b"], False), ([{}, "a"], False), ([{"x": None}, "x"], True), ([{"x": 1, "y": 2}, "y"], True), ([{"apple": 3}, "app"], False)]),
    dict(split="tune", difficulty="easy", task="returns how many entries (key-value pairs) the dictionary `d` has (0 for an empty dictionary).", ref="""
def entry_count(d: dict) -> int:
    return len(d)
""", cases=[([{}], 0), ([{"a": 1}], 1), ([{"a": 1, "b": 2}], 2), ([{"x": None, "y": None, "z": 0}], 3), ([{"k": [1, 2, 3]}], 1)]),
    dict(split="tune", difficulty="easy", task="returns the sum of all the values of the dictionary `d`, whose values are numbers (0 for an empty dictionary).", ref="""
def sum_of_values(d: dict[str, int]) -> int:
    return sum(d.values())
""", cases=[([{"a": 1, "b": 2}], 3), ([{}], 0), ([{"x": 5}], 5), ([{"a": -3, "b": 3}], 0), ([{"p": 10, "q": 20, "r": 30}], 60), ([{"n": -7}], -7)]),
    dict(split="tune", difficulty="easy", task="returns the largest value stored in the non-empty dictionary `d`, whose values are numbers.", ref="""
def largest_value(d: dict[str, int]) -> int:
    return max(d.values())
""", cases=[([{"a": 1, "b": 5}], 5), ([{"x": 3}], 3), ([{"a": -2, "b": -9}], -2), ([{"a": 7, "b": 7}], 7), ([{"p": 10, "q": 40, "r": 30}], 40), ([{"z": 0, "y": -1}], 0)]),
    dict(split="tune", difficulty="easy", task="returns a dictionary mapping each character of the string `s` to how many times it occurs in `s` ({} for an empty string).", ref="""
def char_counts(s: str) -> dict[str, int]:
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    return counts
""", cases=[(["hello"], {"h": 1, "e": 1, "l": 2, "o": 1}), ([""], {}), (["a"], {"a": 1}), (["aaa"], {"a": 3}), (["abab"], {"a": 2, "b": 2}), (["a b"], {"a": 1, " ": 1, "b": 1})]),
    dict(split="tune", difficulty="easy", task="returns a list with the value stored in the dictionary `d` under each key of `keys`, in the order of `keys`, using None for a key that is not in `d`.", ref="""
def lookup_all(d: dict, keys: list[str]) -> list:
    return [d.get(k) for k in keys]
""", cases=[([{"a": 1, "b": 2}, ["a", "b"]], [1, 2]), ([{"a": 1}, ["b"]], [None]), ([{"a": 1}, []], []), ([{}, ["x", "y"]], [None, None]), ([{"a": 1, "b": 2}, ["b", "a", "b"]], [2, 1, 2]), ([{"x": 0}, ["x", "z"]], [0, None])]),
    dict(split="tune", difficulty="easy", task="returns the first key of the dictionary `d` in the dictionary's order, or None if `d` is empty.", ref="""
def first_key(d: dict) -> str | None:
    return list(d)[0] if d else None
""", cases=[([{"a": 1, "b": 2}], "a"), ([{}], None), ([{"x": 5}], "x"), ([{"b": 1, "a": 2, "c": 3}], "b"), ([{"zeta": 0, "alpha": 0}], "zeta")]),
    dict(split="tune", difficulty="easy", task="receives `scores`, a dictionary mapping names to scores, and returns the names whose score is at least `mark`, sorted alphabetically.", ref="""
def passed_names(scores: dict[str, int], mark: int) -> list[str]:
    return sorted(name for name, score in scores.items() if score >= mark)
""", cases=[([{"ann": 70, "bob": 40}, 50], ["ann"]), ([{"ann": 50, "bob": 49}, 50], ["ann"]), ([{}, 10], []), ([{"zoe": 90, "amy": 80, "tim": 20}, 60], ["amy", "zoe"]), ([{"a": 1, "b": 2}, 5], []), ([{"x": 0}, 0], ["x"])]),
    dict(split="tune", difficulty="easy", task="returns a dictionary mapping each string of `words` (all of them non-empty) to its first character.", ref="""
def first_letter_map(words: list[str]) -> dict[str, str]:
    return {w: w[0] for w in words}
""", cases=[([["apple", "kiwi"]], {"apple": "a", "kiwi": "k"}), ([[]], {}), ([["x"]], {"x": "x"}), ([["Bob", "cat"]], {"Bob": "B", "cat": "c"}), ([["hi", "ho", "ab"]], {"hi": "h", "ho": "h", "ab": "a"})]),
    dict(split="tune", difficulty="easy", task="receives `words`, a list of different strings, and returns a dictionary mapping each string to its index in the list (counted from 0).", ref="""
def position_map(words: list[str]) -> dict[str, int]:
    return {w: i for i, w in enumerate(words)}
""", cases=[([["a", "b", "c"]], {"a": 0, "b": 1, "c": 2}), ([[]], {}), ([["x"]], {"x": 0}), ([["cat", "dog"]], {"cat": 0, "dog": 1}), ([["z", "y", "x", "w"]], {"z": 0, "y": 1, "x": 2, "w": 3})]),
    dict(split="tune", difficulty="easy", task="returns the keys that occur in both dictionaries `a` and `b`, sorted alphabetically (an empty list if there are none).", ref="""
def common_keys(a: dict, b: dict) -> list[str]:
    return sorted(set(a) & set(b))
""", cases=[([{"a": 1, "b": 2}, {"b": 3, "c": 4}], ["b"]), ([{}, {"a": 1}], []), ([{"x": 1}, {"y": 1}], []), ([{"c": 1, "a": 2}, {"a": 0, "c": 0, "d": 0}], ["a", "c"]), ([{"k": 1}, {"k": 2}], ["k"]), ([{"b": 1, "a": 1}, {"a": 1, "b": 1}], ["a", "b"])]),
    dict(split="tune", difficulty="easy", task="returns the strings of `keys` that are not keys of the dictionary `d`, in the order of `keys`.", ref="""
def keys_missing(d: dict, keys: list[str]) -> list[str]:
    return [k for k in keys if k not in d]
""", cases=[([{"a": 1}, ["a", "b"]], ["b"]), ([{}, ["x", "y"]], ["x", "y"]), ([{"a": 1}, []], []), ([{"a": 1, "b": 2}, ["a", "b"]], []), ([{"m": 0}, ["z", "m", "c"]], ["z", "c"])]),
    dict(split="tune", difficulty="easy", task="receives two dictionaries `a` and `b` that map words to counts and returns a new dictionary with every key of `a` or `b` mapped to the sum of its counts in both (a key missing from one of them counts 0 there).", ref="""
def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    result = dict(a)
    for key, n in b.items():
        result[key] = result.get(key, 0) + n
    return result
""", cases=[([{"x": 1}, {"x": 2}], {"x": 3}), ([{"a": 1}, {"b": 2}], {"a": 1, "b": 2}), ([{}, {}], {}), ([{}, {"z": 4}], {"z": 4}), ([{"a": 5, "b": 1}, {"b": 3, "c": 2}], {"a": 5, "b": 4, "c": 2}), ([{"k": 2}, {}], {"k": 2})]),
    dict(split="tune", difficulty="easy", task="returns True if every value of the dictionary `d` is a number greater than 0, and False otherwise (True for an empty dictionary).", ref="""
def all_values_positive(d: dict[str, int]) -> bool:
    return all(v > 0 for v in d.values())
""", cases=[([{"a": 1, "b": 2}], True), ([{"a": 0}], False), ([{}], True), ([{"a": 3, "b": -1}], False), ([{"x": 1}], True), ([{"x": 5, "y": 0, "z": 7}], False)]),
    dict(split="tune", difficulty="easy", task="returns how many different values are stored in the dictionary `d` (0 for an empty dictionary).", ref="""
def unique_values_count(d: dict) -> int:
    return len(set(d.values()))
""", cases=[([{"a": 1, "b": 1}], 1), ([{}], 0), ([{"a": 1, "b": 2}], 2), ([{"x": "red", "y": "blue", "z": "red"}], 2), ([{"k": 0}], 1), ([{"a": 3, "b": 4, "c": 5, "d": 3}], 3)]),
    dict(split="tune", difficulty="easy", task="returns the values of the dictionary `d` as a list, ordered by their keys in alphabetical order.", ref="""
def values_sorted_by_key(d: dict) -> list:
    return [d[k] for k in sorted(d)]
""", cases=[([{"b": 1, "a": 2}], [2, 1]), ([{}], []), ([{"x": 5}], [5]), ([{"c": "z", "a": "y", "b": "x"}], ["y", "x", "z"]), ([{"a": 3, "b": 2, "c": 1}], [3, 2, 1]), ([{"pear": 0, "apple": 9}], [9, 0])]),
    dict(split="tune", difficulty="easy", task="returns the value of the Roman numeral letter `ch`: \"I\" is 1, \"V\" is 5, \"X\" is 10, \"L\" is 50, \"C\" is 100, \"D\" is 500 and \"M\" is 1000; any other string gives 0.", ref="""
def roman_digit_value(ch: str) -> int:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    return values.get(ch, 0)
""", cases=[(["I"], 1), (["V"], 5), (["X"], 10), (["L"], 50), (["C"], 100), (["D"], 500), (["M"], 1000), (["i"], 0), (["A"], 0)]),
    dict(split="tune", difficulty="easy", task="groups the non-empty strings of `words` by their first character: it returns a dictionary mapping each first character to the list of the words that start with it, in their original order.", ref="""
def group_by_first_letter(words: list[str]) -> dict[str, list[str]]:
    groups = {}
    for w in words:
        groups.setdefault(w[0], []).append(w)
    return groups
""", cases=[([["apple", "avocado", "banana"]], {"a": ["apple", "avocado"], "b": ["banana"]}), ([[]], {}), ([["x"]], {"x": ["x"]}), ([["cat", "dog", "cow"]], {"c": ["cat", "cow"], "d": ["dog"]}), ([["ab", "ba"]], {"a": ["ab"], "b": ["ba"]}), ([["Bee", "bee"]], {"B": ["Bee"], "b": ["bee"]})]),
    dict(split="tune", difficulty="easy", task="returns a dictionary with the key \"even\" holding how many numbers of `nums` are even and the key \"odd\" holding how many are odd (both 0 for an empty list).", ref="""
def count_parity(nums: list[int]) -> dict[str, int]:
    counts = {"even": 0, "odd": 0}
    for n in nums:
        if n % 2 == 0:
            counts["even"] += 1
        else:
            counts["odd"] += 1
    return counts
""", cases=[([[1, 2, 3]], {"even": 1, "odd": 2}), ([[]], {"even": 0, "odd": 0}), ([[4]], {"even": 1, "odd": 0}), ([[9, 7]], {"even": 0, "odd": 2}), ([[0, -2, 5, 6]], {"even": 3, "odd": 1}), ([[3, 9, 15, 2]], {"even": 1, "odd": 3})]),
    dict(split="tune", difficulty="easy", task="receives `cart`, a list of `[item, quantity]` pairs, and returns the total of all the quantities (0 for an empty cart).", ref="""
def total_quantity(cart: list[list]) -> int:
    return sum(pair[1] for pair in cart)
""", cases=[([[["apple", 2], ["pear", 3]]], 5), ([[]], 0), ([[["milk", 1]]], 1), ([[["egg", 12], ["egg", 6]]], 18), ([[["a", 0], ["b", 4], ["c", 1]]], 5)]),
    # ------------------------------------------------------------------ sets
    dict(split="tune", difficulty="easy", task="returns the values that occur in the list `a` but not in the list `b`, each listed once, in ascending order.", ref="""
def only_in_first(a: list[int], b: list[int]) -> list[int]:
    return sorted(set(a) - set(b))
""", cases=[([[1, 2, 3], [2]], [1, 3]), ([[], [1]], []), ([[1, 2], []], [1, 2]), ([[5, 5, 4], [1]], [4, 5]), ([[1, 2], [1, 2, 3]], []), ([[9, 3, 7], [7]], [3, 9])]),
    dict(split="tune", difficulty="easy", task="returns how many different values occur in both lists `a` and `b` (each common value counted once).", ref="""
def count_common(a: list[int], b: list[int]) -> int:
    return len(set(a) & set(b))
""", cases=[([[1, 2, 3], [2, 3, 4]], 2), ([[], [1]], 0), ([[1, 1], [1, 1]], 1), ([[1, 2], [3, 4]], 0), ([[5, 6, 7], [7, 6, 5]], 3), ([[2, 2, 8], [2]], 1)]),
    dict(split="tune", difficulty="easy", task="returns, as one string in alphabetical order, the lower-case letters from \"a\" to \"z\" that do not occur in `s`, ignoring upper and lower case.", ref="""
def missing_letters(s: str) -> str:
    return "".join(c for c in "abcdefghijklmnopqrstuvwxyz" if c not in s.lower())
""", cases=[(["the quick brown fox jumps over the lazy dog"], ""), ([""], "abcdefghijklmnopqrstuvwxyz"), (["abcdefghijklmnopqrstuvwxy"], "z"), (["ABCDEFGHIJKLMNOPQRSTUVW"], "xyz"), (["Hello World! bcafgijkmnpqstuvxyz"], ""), (["bcdefghijklmnopqrstuvwxyz a"], "")]),
    dict(split="tune", difficulty="easy", task="returns the different vowels (a, e, i, o, u) that occur in the lower-case string `s`, each listed once, sorted alphabetically.", ref="""
def vowels_present(s: str) -> list[str]:
    return sorted(set(s) & set("aeiou"))
""", cases=[(["hello"], ["e", "o"]), ([""], []), (["rhythm"], []), (["education"], ["a", "e", "i", "o", "u"]), (["banana"], ["a"]), (["queue"], ["e", "u"])]),
    dict(split="tune", difficulty="easy", task="returns the different lengths of the strings of `words`, each listed once, in ascending order.", ref="""
def distinct_lengths(words: list[str]) -> list[int]:
    return sorted({len(w) for w in words})
""", cases=[([["a", "bb", "cc"]], [1, 2]), ([[]], []), ([["hello"]], [5]), ([["abc", "", "de", "xyz"]], [0, 2, 3]), ([["four", "one", "three"]], [3, 4, 5]), ([["aa", "bb"]], [2])]),
    dict(split="tune", difficulty="easy", task="returns the different whitespace-separated words of `s`, each listed once, sorted alphabetically (as Python sorts strings).", ref="""
def unique_words_sorted(s: str) -> list[str]:
    return sorted(set(s.split()))
""", cases=[(["b a b"], ["a", "b"]), ([""], []), (["hello"], ["hello"]), (["the cat and the hat"], ["and", "cat", "hat", "the"]), (["Dog dog"], ["Dog", "dog"]), (["  x   y  x "], ["x", "y"])]),
    # ------------------------------------------------------------------ tuples as lists
    dict(split="tune", difficulty="easy", task="returns `[q, r]`, the quotient `a // b` and the remainder `a % b` of dividing the non-negative integer `a` by the positive integer `b`.", ref="""
def divmod_pair(a: int, b: int) -> list[int]:
    return [a // b, a % b]
""", cases=[([7, 2], [3, 1]), ([10, 5], [2, 0]), ([0, 3], [0, 0]), ([3, 7], [0, 3]), ([17, 4], [4, 1]), ([100, 1], [100, 0])]),
    dict(split="tune", difficulty="easy", task="returns `[count, total]`: how many numbers the list `nums` has and their sum ([0, 0] for an empty list).", ref="""
def count_and_sum(nums: list[int]) -> list[int]:
    return [len(nums), sum(nums)]
""", cases=[([[1, 2, 3]], [3, 6]), ([[]], [0, 0]), ([[5]], [1, 5]), ([[-1, 1]], [2, 0]), ([[10, 20, 30, 40]], [4, 100])]),
    dict(split="tune", difficulty="easy", task="returns `[a + b, a * b]`, the sum and the product of the integers `a` and `b`.", ref="""
def sum_and_product(a: int, b: int) -> list[int]:
    return [a + b, a * b]
""", cases=[([2, 3], [5, 6]), ([0, 5], [5, 0]), ([2, 2], [4, 4]), ([-1, 4], [3, -4]), ([7, 1], [8, 7]), ([10, -10], [0, -100])]),
    # ------------------------------------------------------------------ min/max/sorted with key
    dict(split="tune", difficulty="easy", task="returns the longest list in `lists`, a non-empty list of lists (the first one if several are equally long).", ref="""
def longest_list(lists: list[list]) -> list:
    return max(lists, key=len)
""", cases=[([[[1], [1, 2], [3]]], [1, 2]), ([[[]]], []), ([[[1, 2], [3, 4]]], [1, 2]), ([[[], [5], [6, 7, 8]]], [6, 7, 8]), ([[["a", "b"], ["c"]]], ["a", "b"]), ([[[0], [], [9]]], [0])]),
    dict(split="tune", difficulty="easy", task="returns the word of the non-empty list `words` in which the character `ch` occurs most often (the first such word if there is a tie).", ref="""
def most_of_letter(words: list[str], ch: str) -> str:
    return max(words, key=lambda w: w.count(ch))
""", cases=[([["apple", "banana"], "a"], "banana"), ([["apple", "banana"], "p"], "apple"), ([["cat", "dog"], "z"], "cat"), ([["hello"], "l"], "hello"), ([["see", "bee", "eerie"], "e"], "eerie"), ([["ab", "ba"], "a"], "ab")]),
    dict(split="tune", difficulty="easy", task="returns the numbers of `nums` sorted from largest to smallest.", ref="""
def sort_descending(nums: list[int]) -> list[int]:
    return sorted(nums, reverse=True)
""", cases=[([[1, 3, 2]], [3, 2, 1]), ([[]], []), ([[5]], [5]), ([[2, 2, 1]], [2, 2, 1]), ([[-1, 0, -5, 7]], [7, 0, -1, -5]), ([[1, 2, 3, 4]], [4, 3, 2, 1])]),
    dict(split="tune", difficulty="easy", task="returns the strings of `sentences` sorted by how many whitespace-separated words they contain, fewest first; strings with the same number of words keep their original order.", ref="""
def sort_by_word_count(sentences: list[str]) -> list[str]:
    return sorted(sentences, key=lambda s: len(s.split()))
""", cases=[([["a b c", "a", "a b"]], ["a", "a b", "a b c"]), ([[]], []), ([["hi"]], ["hi"]), ([["x y", "one", "p q"]], ["one", "x y", "p q"]), ([["", "long sentence here", "two words"]], ["", "two words", "long sentence here"]), ([["b c", "a"]], ["a", "b c"])]),
    # ------------------------------------------------------------------ any / all and defaults
    dict(split="tune", difficulty="easy", task="returns True if none of the strings of `words` is the empty string \"\", and False otherwise (True for an empty list).", ref="""
def all_nonempty(words: list[str]) -> bool:
    return all(w != "" for w in words)
""", cases=[([["a", "b"]], True), ([["a", ""]], False), ([[]], True), ([[""]], False), ([[" "]], True), ([["hello", "world", ""]], False)]),
    dict(split="tune", difficulty="easy", task="returns True if at least one number of `nums` is divisible by the positive integer `k`, and False otherwise (False for an empty list).", ref="""
def any_divisible(nums: list[int], k: int) -> bool:
    return any(x % k == 0 for x in nums)
""", cases=[([[1, 2, 3], 3], True), ([[1, 2, 4], 3], False), ([[], 2], False), ([[7], 7], True), ([[5, 9, 11], 2], False), ([[0], 5], True), ([[4, 13], 4], True)]),
    dict(split="tune", difficulty="easy", task="returns the largest number of `nums`, or `default` if `nums` is empty.", ref="""
def max_or_default(nums: list[int], default: int) -> int:
    return max(nums, default=default)
""", cases=[([[1, 5, 2], 0], 5), ([[], 0], 0), ([[], -1], -1), ([[-3, -7], 0], -3), ([[4], 100], 4), ([[2, 9, 9], 1], 9)]),
]
