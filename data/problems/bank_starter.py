"""Starter-level problems of the problem bank, all held out (checked by data/problems/bank_check.py): each
maps onto one familiar Python idiom or builtin (len, sum, max, min, sorted, set, a str or dict method, a
slice, a comprehension, zip, enumerate, range), stated plainly, at the level the base student solves some
of the time, so that the held-out pass rate has something to move."""
PROBLEMS = [
    # ------------------------------------------------------------------ strings
    dict(split="heldout", difficulty="easy", task="returns True if the string `s` is not empty and every character of it is a letter, and False otherwise.", ref="""
def is_all_letters(s: str) -> bool:
    return s.isalpha()
""", cases=[(["hello"], True), (["Hello"], True), (["abc1"], False), ([""], False), (["two words"], False), (["X"], True), (["hi!"], False)]),
    dict(split="heldout", difficulty="easy", task="returns the lines of `text` as a list of strings, where the lines are separated by newline characters \"\\n\".", ref="""
def split_lines(text: str) -> list[str]:
    return text.split("\\n")
""", cases=[(["a\nb"], ["a", "b"]), (["one"], ["one"]), (["x\n\ny"], ["x", "", "y"]), (["hello world\nbye"], ["hello world", "bye"]), (["1\n2\n3"], ["1", "2", "3"]), (["a b\nc d"], ["a b", "c d"])]),
    dict(split="heldout", difficulty="easy", task="returns a list of the characters of the string `s`, in order.", ref="""
def char_list(s: str) -> list[str]:
    return list(s)
""", cases=[(["abc"], ["a", "b", "c"]), ([""], []), (["a"], ["a"]), (["hi there"], ["h", "i", " ", "t", "h", "e", "r", "e"]), (["112"], ["1", "1", "2"])]),
    dict(split="train", difficulty="easy", task="returns the first `n` characters of the string `s` (all of `s` if it has fewer than `n` characters; `n` is never negative).", ref="""
def first_chars(s: str, n: int) -> str:
    return s[:n]
""", cases=[(["hello", 2], "he"), (["hello", 0], ""), (["hi", 5], "hi"), (["", 3], ""), (["Python", 6], "Python"), (["abcdef", 3], "abc")]),
    dict(split="train", difficulty="easy", task="returns the string `s` without its first `n` characters (\"\" if `s` has `n` characters or fewer; `n` is never negative).", ref="""
def drop_chars(s: str, n: int) -> str:
    return s[n:]
""", cases=[(["hello", 2], "llo"), (["hello", 0], "hello"), (["hi", 5], ""), (["", 1], ""), (["Python", 1], "ython"), (["abcdef", 3], "def")]),
    dict(split="train", difficulty="easy", task="returns the string `s` without the whitespace (spaces, tabs, newlines) at its start and at its end; whitespace inside `s` is kept.", ref="""
def trim(s: str) -> str:
    return s.strip()
""", cases=[(["  hello  "], "hello"), (["hi"], "hi"), (["   "], ""), ([""], ""), (["\tone two\n"], "one two"), ([" a  b "], "a  b")]),
    dict(split="heldout", difficulty="easy", task="returns the string `s` with every character that is not a letter removed, so only its letters are left, in order.", ref="""
def letters_only(s: str) -> str:
    return "".join(ch for ch in s if ch.isalpha())
""", cases=[(["a1b2c3"], "abc"), (["Hello, World!"], "HelloWorld"), (["123"], ""), ([""], ""), (["abc"], "abc"), (["R2-D2 c"], "RDc")]),
    dict(split="heldout", difficulty="easy", task="returns the different characters of the string `s` as a list, each listed once, sorted in ascending order.", ref="""
def distinct_chars(s: str) -> list[str]:
    return sorted(set(s))
""", cases=[(["banana"], ["a", "b", "n"]), ([""], []), (["aaa"], ["a"]), (["cab"], ["a", "b", "c"]), (["hello"], ["e", "h", "l", "o"]), (["3121"], ["1", "2", "3"])]),
    dict(split="train", difficulty="easy", task="returns True if the string `s` contains at least one upper-case letter and False otherwise.", ref="""
def has_upper(s: str) -> bool:
    return any(ch.isupper() for ch in s)
""", cases=[(["Hello"], True), (["hello"], False), ([""], False), (["abC"], True), (["123!"], False), (["ALL"], True), (["mid Word"], True)]),
    dict(split="heldout", difficulty="easy", task="returns whichever of the strings `a` and `b` has more characters; if they are equally long, it returns `a`.", ref="""
def longer_string(a: str, b: str) -> str:
    return a if len(a) >= len(b) else b
""", cases=[(["apple", "fig"], "apple"), (["hi", "hello"], "hello"), (["ab", "cd"], "ab"), (["", "x"], "x"), (["same", "size"], "same"), (["", ""], ""), (["long one", "short"], "long one")]),
    dict(split="heldout", difficulty="easy", task="returns the upper-case letters of the string `s`, in the order they appear, joined into one string.", ref="""
def upper_letters(s: str) -> str:
    return "".join(ch for ch in s if ch.isupper())
""", cases=[(["Hello World"], "HW"), (["abc"], ""), ([""], ""), (["ABC"], "ABC"), (["New York City"], "NYC"), (["a1B2c3D"], "BD")]),
    dict(split="heldout", difficulty="easy", task="returns the character whose Unicode code point is the integer `n` (so 65 gives \"A\" and 97 gives \"a\").", ref="""
def char_from_code(n: int) -> str:
    return chr(n)
""", cases=[([65], "A"), ([97], "a"), ([48], "0"), ([32], " "), ([122], "z"), ([33], "!")]),
    dict(split="heldout", difficulty="easy", task="returns True if `word` is one of the whitespace-separated words of the string `s` (the whole word, case-sensitive), and False otherwise.", ref="""
def has_word(s: str, word: str) -> bool:
    return word in s.split()
""", cases=[(["the cat sat", "cat"], True), (["the cat sat", "dog"], False), (["concatenate", "cat"], False), (["", "a"], False), (["Cat and dog", "cat"], False), (["one", "one"], True), (["a b c", "c"], True)]),
    dict(split="heldout", difficulty="easy", task="returns how many characters the string `s` has when its space characters are not counted.", ref="""
def length_without_spaces(s: str) -> int:
    return len(s.replace(" ", ""))
""", cases=[(["hello world"], 10), ([""], 0), (["   "], 0), (["abc"], 3), ([" a b c "], 3), (["one  two"], 6)]),
    dict(split="heldout", difficulty="easy", task="converts the string `s`, a whole number followed by a percent sign such as \"45%\", to that number as an int (so \"45%\" gives 45).", ref="""
def parse_percent(s: str) -> int:
    return int(s[:-1])
""", cases=[(["45%"], 45), (["100%"], 100), (["0%"], 0), (["7%"], 7), (["-20%"], -20), (["250%"], 250)]),
    dict(split="heldout", difficulty="easy", task="returns the string `s` converted to an int, or None if `s` is not a valid whole number (use `int(s)` and catch the ValueError it raises).", ref="""
def to_int_or_none(s: str):
    try:
        value = int(s)
    except ValueError:
        value = None
    return value
""", cases=[(["42"], 42), (["-7"], -7), (["abc"], None), ([""], None), (["3.5"], None), (["0"], 0), ([" 12 "], 12)]),
    dict(split="heldout", difficulty="easy", task="returns True if every character of the string `s` is an ASCII character, one whose code point (`ord`) is below 128, and False otherwise (True for an empty string).", ref="""
def is_plain_ascii(s: str) -> bool:
    return all(ord(ch) < 128 for ch in s)
""", cases=[(["hello"], True), (["caf\u00e9"], False), ([""], True), (["\u00fcber"], False), (["A-Z 0-9!"], True), (["\x7f"], True), (["\x80"], False)]),
    dict(split="heldout", difficulty="easy", task="returns the string `s` in upper case followed by an exclamation mark \"!\" (so \"hi\" gives \"HI!\").", ref="""
def shout(s: str) -> str:
    return s.upper() + "!"
""", cases=[(["hi"], "HI!"), ([""], "!"), (["Hello world"], "HELLO WORLD!"), (["ABC"], "ABC!"), (["go 2"], "GO 2!")]),

    # ------------------------------------------------------------------ lists of numbers
    dict(split="heldout", difficulty="easy", task="returns how many numbers in the list `nums` are even.", ref="""
def count_evens(nums: list[int]) -> int:
    return sum(1 for x in nums if x % 2 == 0)
""", cases=[([[1, 2, 3, 4]], 2), ([[]], 0), ([[1, 3, 5]], 0), ([[2, 4, 6]], 3), ([[0, -2, 7]], 2), ([[9, 3, 12, 15]], 1)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the numbers in the list `nums` that are greater than zero (0 if there are none).", ref="""
def sum_positives(nums: list[int]) -> int:
    return sum(max(x, 0) for x in nums)
""", cases=[([[1, -2, 3]], 4), ([[]], 0), ([[-1, -5]], 0), ([[0, 2, 0]], 2), ([[10, 20]], 30), ([[-3, 1, -1, 5]], 6)]),
    dict(split="train", difficulty="easy", task="returns True if at least one number in the list `nums` is negative (less than zero) and False otherwise.", ref="""
def has_negative(nums: list[int]) -> bool:
    return any(x < 0 for x in nums)
""", cases=[([[1, -2, 3]], True), ([[]], False), ([[0, 1, 2]], False), ([[-1]], True), ([[5, 6, 7]], False), ([[0, 0, -10]], True)]),
    dict(split="heldout", difficulty="easy", task="returns the first even number in the list `nums`, or None if it contains no even number.", ref="""
def first_even(nums: list[int]):
    return next((x for x in nums if x % 2 == 0), None)
""", cases=[([[1, 4, 6]], 4), ([[1, 3, 5]], None), ([[]], None), ([[2]], 2), ([[7, 9, 0, 2]], 0), ([[3, 15, -4]], -4)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the absolute values of the numbers in the list `nums` (0 for an empty list).", ref="""
def sum_of_abs(nums: list[int]) -> int:
    return sum(abs(x) for x in nums)
""", cases=[([[1, -2, 3]], 6), ([[]], 0), ([[-5]], 5), ([[0, 0]], 0), ([[-1, -1, -1]], 3), ([[10, -20, 30]], 60)]),
    dict(split="heldout", difficulty="easy", task="returns the largest absolute value among the numbers of the non-empty list `nums`.", ref="""
def max_abs(nums: list[int]) -> int:
    return max(abs(x) for x in nums)
""", cases=[([[1, -5, 3]], 5), ([[2]], 2), ([[-7]], 7), ([[0, 0]], 0), ([[4, -4]], 4), ([[-1, 10, -3]], 10)]),
    dict(split="train", difficulty="easy", task="returns a new list with the absolute value of every number of `nums`, in order.", ref="""
def abs_all(nums: list[int]) -> list[int]:
    return [abs(x) for x in nums]
""", cases=[([[1, -2, 3]], [1, 2, 3]), ([[]], []), ([[-5, -6]], [5, 6]), ([[0]], [0]), ([[7, -7, 0]], [7, 7, 0])]),
    dict(split="heldout", difficulty="easy", task="returns a new list with every number of `values` rounded to the nearest whole number with `round`, in order.", ref="""
def round_all(values: list[float]) -> list[int]:
    return [round(x) for x in values]
""", cases=[([[1.2, 2.7, 3.0]], [1, 3, 3]), ([[]], []), ([[-1.8]], [-2]), ([[0.1, 9.9]], [0, 10]), ([[4.4, -2.2]], [4, -2])]),
    dict(split="train", difficulty="easy", task="returns a list of booleans, one for each number of `nums` in order: True if the number is greater than zero and False otherwise.", ref="""
def positive_flags(nums: list[int]) -> list[bool]:
    return [x > 0 for x in nums]
""", cases=[([[1, -2, 3]], [True, False, True]), ([[]], []), ([[0]], [False]), ([[1]], [True]), ([[-1, 5, 0]], [False, True, False])]),
    dict(split="heldout", difficulty="easy", task="returns a new list in which `k` has been added to every number of `nums`.", ref="""
def add_to_all(nums: list[int], k: int) -> list[int]:
    return [x + k for x in nums]
""", cases=[([[1, 2, 3], 10], [11, 12, 13]), ([[], 5], []), ([[0], -1], [-1]), ([[5, 5], 0], [5, 5]), ([[-3, 4], 3], [0, 7])]),
    dict(split="heldout", difficulty="easy", task="returns the first number of the non-empty list `nums` plus its last number (a list of one number adds that number to itself).", ref="""
def ends_sum(nums: list[int]) -> int:
    return nums[0] + nums[-1]
""", cases=[([[1, 2, 3]], 4), ([[5]], 10), ([[10, 20]], 30), ([[4, 8, 15, 16]], 20), ([[-1, 7, 9, 2, 3]], 2), ([[0, 6, 0]], 0)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the numbers of `nums` at the even positions 0, 2, 4, ... (0 for an empty list).", ref="""
def sum_even_positions(nums: list[int]) -> int:
    return sum(nums[::2])
""", cases=[([[1, 2, 3, 4]], 4), ([[]], 0), ([[5]], 5), ([[10, 20, 30, 40, 50]], 90), ([[1, 100, 1, 100, 1, 100]], 3), ([[7, 8]], 7)]),
    dict(split="heldout", difficulty="easy", task="returns the list of the valid indices of the list `items`, that is [0, 1, ..., len(items) - 1] ([] for an empty list).", ref="""
def indices_of(items: list) -> list[int]:
    return list(range(len(items)))
""", cases=[([["a", "b", "c"]], [0, 1, 2]), ([[]], []), ([[9]], [0]), ([[5, 5, 5, 5]], [0, 1, 2, 3]), ([[None, None]], [0, 1])]),
    dict(split="heldout", difficulty="easy", task="returns a new list with all the items of `items` except the first one ([] for an empty list).", ref="""
def without_first(items: list) -> list:
    return items[1:]
""", cases=[([[1, 2, 3]], [2, 3]), ([[]], []), ([[1]], []), ([["a", "b"]], ["b"]), ([[4, 5, 6, 7]], [5, 6, 7])]),
    dict(split="heldout", difficulty="easy", task="returns a list whose item i is `a[i] + b[i]`, for the equally long lists of numbers `a` and `b`.", ref="""
def add_lists(a: list[int], b: list[int]) -> list[int]:
    return [x + y for x, y in zip(a, b)]
""", cases=[([[1, 2, 3], [10, 20, 30]], [11, 22, 33]), ([[], []], []), ([[5], [-5]], [0]), ([[0, 0], [1, 2]], [1, 2]), ([[-1, 4], [3, 3]], [2, 7])]),
    dict(split="heldout", difficulty="easy", task="returns a list of `[index, item]` pairs for the items of `items`, in order, with indices counted from 0.", ref="""
def indexed_pairs(items: list) -> list[list]:
    return [[i, x] for i, x in enumerate(items)]
""", cases=[([["a", "b"]], [[0, "a"], [1, "b"]]), ([[]], []), ([[7]], [[0, 7]]), ([["x", "x", "y"]], [[0, "x"], [1, "x"], [2, "y"]]), ([[10, 20, 30, 40]], [[0, 10], [1, 20], [2, 30], [3, 40]])]),
    dict(split="heldout", difficulty="easy", task="returns True if the last number of the non-empty list `nums` is greater than its first number, and False otherwise.", ref="""
def ends_higher(nums: list[int]) -> bool:
    return nums[-1] > nums[0]
""", cases=[([[1, 5, 3]], True), ([[3, 5, 1]], False), ([[2, 9, 2]], False), ([[7]], False), ([[1, 2]], True), ([[4, 0, 1, 6]], True), ([[5, 9, 8, 2]], False)]),
    dict(split="heldout", difficulty="easy", task="returns True if the first occurrence of `a` in the list `items` comes before (at a smaller index than) the first occurrence of `b`, and False otherwise; both `a` and `b` occur in `items`.", ref="""
def comes_before(items: list, a, b) -> bool:
    return items.index(a) < items.index(b)
""", cases=[([[1, 2, 3], 1, 3], True), ([[1, 2, 3], 3, 1], False), ([["x", "y"], "x", "y"], True), ([[5, 6, 5], 6, 5], False), ([[4, 4], 4, 4], False), ([["b", "a", "c"], "a", "c"], True)]),
    dict(split="heldout", difficulty="easy", task="returns `[evens, odds]`: the even numbers of `nums` and the odd numbers of `nums`, each list in the original order.", ref="""
def evens_and_odds(nums: list[int]) -> list[list[int]]:
    return [[x for x in nums if x % 2 == 0], [x for x in nums if x % 2 != 0]]
""", cases=[([[1, 2, 3, 4]], [[2, 4], [1, 3]]), ([[]], [[], []]), ([[5, 7]], [[], [5, 7]]), ([[0, 6]], [[0, 6], []]), ([[9, -2, 3, 12]], [[-2, 12], [9, 3]])]),
    dict(split="heldout", difficulty="easy", task="returns the items of `items` that are truthy (that is, for which `bool(item)` is True), in their original order; so 0, \"\", None, False and empty lists are left out.", ref="""
def truthy_items(items: list) -> list:
    return [x for x in items if x]
""", cases=[([[0, 1, 2]], [1, 2]), ([[]], []), ([["", "a", None]], ["a"]), ([[[], [1], False, True]], [[1], True]), ([[5, "x", 0, ""]], [5, "x"])]),
    dict(split="heldout", difficulty="easy", task="returns the items of `items` whose type is `int`, in their original order (strings, floats, None and the other types are left out).", ref="""
def ints_only(items: list) -> list[int]:
    return [x for x in items if type(x) is int]
""", cases=[([[1, "a", 2.5, 3]], [1, 3]), ([[]], []), ([["1", "2"]], []), ([[None, 0, -4]], [0, -4]), ([[7, [8], 9]], [7, 9])]),
    dict(split="heldout", difficulty="easy", task="returns how many of the booleans in the list `flags` are True.", ref="""
def count_true(flags: list[bool]) -> int:
    return flags.count(True)
""", cases=[([[True, False, True]], 2), ([[]], 0), ([[False, False]], 0), ([[True]], 1), ([[True, True, True, False]], 3)]),
    dict(split="heldout", difficulty="easy", task="returns True if at least one of the booleans in the list `flags` is True, and False otherwise (False for an empty list).", ref="""
def any_true(flags: list[bool]) -> bool:
    return any(flags)
""", cases=[([[False, True]], True), ([[]], False), ([[False, False]], False), ([[True]], True), ([[False, False, False, True]], True)]),
    dict(split="heldout", difficulty="easy", task="returns the different numbers of `nums` in ascending order, each listed once.", ref="""
def sorted_unique(nums: list[int]) -> list[int]:
    return sorted(set(nums))
""", cases=[([[3, 1, 3, 2]], [1, 2, 3]), ([[]], []), ([[5, 5, 5]], [5]), ([[-1, 4, -1, 0]], [-1, 0, 4]), ([[10, 9, 8]], [8, 9, 10])]),
    dict(split="heldout", difficulty="easy", task="returns a string with one character for each boolean of `flags`, in order: \"1\" for True and \"0\" for False.", ref="""
def flags_to_bits(flags: list[bool]) -> str:
    return "".join("1" if f else "0" for f in flags)
""", cases=[([[True, False, True]], "101"), ([[]], ""), ([[False]], "0"), ([[True, True]], "11"), ([[False, True, False, False]], "0100")]),
    dict(split="heldout", difficulty="easy", task="returns the numbers of `nums` that are at least `lo` and at most `hi`, in their original order.", ref="""
def values_between(nums: list[int], lo: int, hi: int) -> list[int]:
    return [x for x in nums if lo <= x <= hi]
""", cases=[([[1, 5, 10, 15], 5, 10], [5, 10]), ([[], 0, 9], []), ([[1, 2, 3], 4, 6], []), ([[4, 6, 5, 3, 7], 4, 6], [4, 6, 5]), ([[-2, 0, 2], -1, 1], [0])]),
    dict(split="heldout", difficulty="easy", task="returns True if no value occurs more than once in the list `items` (True for an empty list), and False otherwise.", ref="""
def all_distinct(items: list) -> bool:
    return len(set(items)) == len(items)
""", cases=[([[1, 2, 3]], True), ([[1, 2, 1]], False), ([[]], True), ([["a", "b", "a"]], False), ([["x"]], True), ([[0, 1, 2, 3, 3]], False)]),
    dict(split="heldout", difficulty="easy", task="returns a new list in which every None of `items` is replaced by `default`; the other items stay as they are.", ref="""
def fill_none(items: list, default) -> list:
    return [default if x is None else x for x in items]
""", cases=[([[1, None, 3], 0], [1, 0, 3]), ([[], 5], []), ([[None, None], "x"], ["x", "x"]), ([[0, "", None], 9], [0, "", 9]), ([["a"], "b"], ["a"])]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a list of two-item lists, and returns `[firsts, seconds]`: the list of the first items of the pairs and the list of their second items, in order.", ref="""
def unzip_pairs(pairs: list[list]) -> list[list]:
    return [[p[0] for p in pairs], [p[1] for p in pairs]]
""", cases=[([[[1, "a"], [2, "b"]]], [[1, 2], ["a", "b"]]), ([[]], [[], []]), ([[[5, 6]]], [[5], [6]]), ([[[0, 1], [2, 3], [4, 5]]], [[0, 2, 4], [1, 3, 5]]), ([[["x", "y"], ["z", "w"]]], [["x", "z"], ["y", "w"]])]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a list of two-number lists, and returns the list of the products of the two numbers of each pair, in order.", ref="""
def pair_products(pairs: list[list[int]]) -> list[int]:
    return [a * b for a, b in pairs]
""", cases=[([[[2, 3], [4, 5]]], [6, 20]), ([[]], []), ([[[7, 0]]], [0]), ([[[-2, 6], [1, 1]]], [-12, 1]), ([[[10, 10], [3, 9], [8, 2]]], [100, 27, 16])]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a non-empty list of two-number lists, and returns the pair whose two numbers have the largest sum (the first such pair if several tie).", ref="""
def biggest_pair(pairs: list[list[int]]) -> list[int]:
    return max(pairs, key=sum)
""", cases=[([[[1, 2], [5, 5], [3, 4]]], [5, 5]), ([[[0, 0]]], [0, 0]), ([[[1, 9], [9, 1]]], [1, 9]), ([[[-1, -2], [-5, 1]]], [-1, -2]), ([[[2, 2], [1, 1], [3, 3]]], [3, 3])]),
    dict(split="heldout", difficulty="easy", task="returns a list whose item i is the largest of the numbers `nums[0]` to `nums[i]`, the running maximum of `nums` ([] for an empty list).", ref="""
def running_max(nums: list[int]) -> list[int]:
    out = []
    for x in nums:
        out.append(x if not out else max(out[-1], x))
    return out
""", cases=[([[1, 3, 2, 5, 4]], [1, 3, 3, 5, 5]), ([[]], []), ([[7]], [7]), ([[5, 4, 3]], [5, 5, 5]), ([[-2, -1, -3, 0]], [-2, -1, -1, 0]), ([[2, 2, 6, 1]], [2, 2, 6, 6])]),
    dict(split="heldout", difficulty="easy", task="returns the length of the shorter of the two lists `a` and `b` (their common length if they are equally long).", ref="""
def shorter_length(a: list, b: list) -> int:
    return min(len(a), len(b))
""", cases=[([[1, 2, 3], [4, 5]], 2), ([[], [1]], 0), ([[1], [2]], 1), ([["a", "b"], ["c", "d", "e", "f"]], 2), ([[0, 0, 0], [1, 1, 1]], 3)]),
    dict(split="heldout", difficulty="easy", task="returns True if every boolean in the list `flags` is True, and False otherwise (True for an empty list).", ref="""
def all_true(flags: list[bool]) -> bool:
    return all(flags)
""", cases=[([[True, True]], True), ([[]], True), ([[True, False]], False), ([[False]], False), ([[True, True, True, False]], False), ([[True]], True)]),
    dict(split="heldout", difficulty="easy", task="returns the first item of `items` that is not None, or None if there is no such item.", ref="""
def first_not_none(items: list):
    return next((x for x in items if x is not None), None)
""", cases=[([[None, 3, 4]], 3), ([[]], None), ([[None, None]], None), ([[0, None]], 0), ([[None, "", "a"]], ""), ([["x"]], "x")]),
    dict(split="heldout", difficulty="easy", task="returns every pair `[x, y]` with `x` taken from the list `a` and `y` from the list `b`: first the pairs with the first item of `a`, in the order of `b`, then the pairs with the second item of `a`, and so on.", ref="""
def all_combinations(a: list, b: list) -> list[list]:
    return [[x, y] for x in a for y in b]
""", cases=[([[1, 2], ["a", "b"]], [[1, "a"], [1, "b"], [2, "a"], [2, "b"]]), ([[], [1]], []), ([[1], []], []), ([[0], [5]], [[0, 5]]), ([["x", "y", "z"], [1]], [["x", 1], ["y", 1], ["z", 1]]), ([[1, 2], [3, 4, 5]], [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]])]),
    dict(split="heldout", difficulty="easy", task="returns every pair `[items[i], items[j]]` of items of `items` at positions `i < j`, ordered by `i` and then by `j` ([] when `items` has fewer than two items).", ref="""
def unordered_pairs(items: list) -> list[list]:
    return [[items[i], items[j]] for i in range(len(items)) for j in range(i + 1, len(items))]
""", cases=[([[1, 2, 3]], [[1, 2], [1, 3], [2, 3]]), ([[]], []), ([[5]], []), ([["a", "b"]], [["a", "b"]]), ([[1, 2, 3, 4]], [[1, 2], [1, 3], [1, 4], [2, 3], [2, 4], [3, 4]]), ([[7, 7]], [[7, 7]])]),
    dict(split="heldout", difficulty="easy", task="returns the square of the sum of the numbers of `nums`: first add them all up, then multiply that total by itself (0 for an empty list).", ref="""
def square_of_sum(nums: list[int]) -> int:
    total = sum(nums)
    return total * total
""", cases=[([[1, 2, 3]], 36), ([[]], 0), ([[5]], 25), ([[-2, 2]], 0), ([[-1, -2]], 9), ([[10, 0, 1]], 121)]),
    dict(split="heldout", difficulty="easy", task="returns a list with the last decimal digit of each non-negative integer of `nums`, in order.", ref="""
def last_digits(nums: list[int]) -> list[int]:
    return [n % 10 for n in nums]
""", cases=[([[12, 345, 7]], [2, 5, 7]), ([[]], []), ([[0, 10]], [0, 0]), ([[99, 1001]], [9, 1]), ([[58, 6]], [8, 6])]),
    dict(split="heldout", difficulty="easy", task="receives `lists`, a list of lists of numbers, and returns a new list in which each inner list is sorted in ascending order (the inner lists stay in their order).", ref="""
def sort_each(lists: list[list[int]]) -> list[list[int]]:
    return [sorted(x) for x in lists]
""", cases=[([[[3, 1, 2], [5, 4]]], [[1, 2, 3], [4, 5]]), ([[]], []), ([[[]]], [[]]), ([[[9], [2, 2, 1]]], [[9], [1, 2, 2]]), ([[[0, -1], [7, 3, 5]]], [[-1, 0], [3, 5, 7]])]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a list of two-item lists, and returns the pairs whose two items are equal, in their original order.", ref="""
def matching_pairs(pairs: list[list]) -> list[list]:
    return [p for p in pairs if p[0] == p[1]]
""", cases=[([[[1, 1], [1, 2], [3, 3]]], [[1, 1], [3, 3]]), ([[]], []), ([[[0, 1]]], []), ([[["a", "a"], ["a", "b"]]], [["a", "a"]]), ([[[2, 2], [2, 2]]], [[2, 2], [2, 2]])]),

    # ------------------------------------------------------------------ lists of strings
    dict(split="heldout", difficulty="easy", task="returns the total number of characters in all the strings of `words` together (0 for an empty list).", ref="""
def total_length(words: list[str]) -> int:
    return sum(len(w) for w in words)
""", cases=[([["ab", "cde"]], 5), ([[]], 0), ([[""]], 0), ([["hello"]], 5), ([["a", "b", "c", "d"]], 4), ([["hi there", "x"]], 9)]),
    dict(split="heldout", difficulty="easy", task="returns the string of the non-empty list `words` that comes first in alphabetical order (as Python compares strings with `<`).", ref="""
def first_alphabetically(words: list[str]) -> str:
    return min(words)
""", cases=[([["pear", "apple", "fig"]], "apple"), ([["zoo"]], "zoo"), ([["b", "a", "c"]], "a"), ([["cat", "car", "cab"]], "cab"), ([["dog", "do"]], "do"), ([["kiwi", "lime", "melon"]], "kiwi")]),
    dict(split="heldout", difficulty="easy", task="returns the strings of `words` that read the same forwards and backwards, in their original order.", ref="""
def palindromic_words(words: list[str]) -> list[str]:
    return [w for w in words if w == w[::-1]]
""", cases=[([["abba", "abc", "level"]], ["abba", "level"]), ([[]], []), ([["hello"]], []), ([["a", "", "xy"]], ["a", ""]), ([["noon", "moon", "racecar", "abca"]], ["noon", "racecar"])]),
    dict(split="heldout", difficulty="easy", task="returns a list with the last character of each non-empty string of `words`, in order.", ref="""
def last_letters(words: list[str]) -> list[str]:
    return [w[-1] for w in words]
""", cases=[([["cat", "dog"]], ["t", "g"]), ([[]], []), ([["a"]], ["a"]), ([["hello", "world", "xyz"]], ["o", "d", "z"]), ([["ab", "ba"]], ["b", "a"])]),
    dict(split="heldout", difficulty="easy", task="returns the number of characters of the longest string in the non-empty list `words`.", ref="""
def longest_length(words: list[str]) -> int:
    return max(len(w) for w in words)
""", cases=[([["a", "abc", "ab"]], 3), ([[""]], 0), ([["hello"]], 5), ([["xx", "yy"]], 2), ([["short", "longer one", "mid"]], 10)]),
    dict(split="heldout", difficulty="easy", task="returns the non-empty strings of `words` sorted by their last character; strings with the same last character keep their original order.", ref="""
def sort_by_last_letter(words: list[str]) -> list[str]:
    return sorted(words, key=lambda w: w[-1])
""", cases=[([["cat", "dog", "bee"]], ["bee", "dog", "cat"]), ([[]], []), ([["a"]], ["a"]), ([["ab", "ba", "cb"]], ["ba", "ab", "cb"]), ([["xyz", "abc", "mno"]], ["abc", "mno", "xyz"]), ([["zc", "ya", "xb"]], ["ya", "xb", "zc"])]),
    dict(split="heldout", difficulty="easy", task="returns True if at least one string of `words` has more than `n` characters, and False otherwise.", ref="""
def has_long_word(words: list[str], n: int) -> bool:
    return any(len(w) > n for w in words)
""", cases=[([["hi", "hello"], 3], True), ([["hi", "hey"], 3], False), ([[], 0], False), ([[""], 0], False), ([["a"], 0], True), ([["four", "five"], 4], False), ([["abc", "abcdef"], 5], True)]),
    dict(split="train", difficulty="easy", task="returns a new list with every string of `words` converted to upper case, in order.", ref="""
def upper_all(words: list[str]) -> list[str]:
    return [w.upper() for w in words]
""", cases=[([["a", "Bc"]], ["A", "BC"]), ([[]], []), ([[""]], [""]), ([["hello world", "x1"]], ["HELLO WORLD", "X1"]), ([["OK"]], ["OK"])]),
    dict(split="train", difficulty="easy", task="returns a list with, for each string of `lines` in order, how many whitespace-separated words it contains.", ref="""
def word_count_each(lines: list[str]) -> list[int]:
    return [len(line.split()) for line in lines]
""", cases=[([["hello world", "one"]], [2, 1]), ([[]], []), ([[""]], [0]), ([["  a  b  c  ", "x y"]], [3, 2]), ([["the quick brown fox", "   "]], [4, 0])]),
    dict(split="heldout", difficulty="easy", task="returns the strings of `sentences` that end with a question mark \"?\", in their original order.", ref="""
def questions_only(sentences: list[str]) -> list[str]:
    return [s for s in sentences if s.endswith("?")]
""", cases=[([["How are you?", "Fine.", "Why?"]], ["How are you?", "Why?"]), ([[]], []), ([["No.", "Yes!"]], []), ([["?", ""]], ["?"]), ([["What? No", "ok??"]], ["ok??"])]),
    dict(split="heldout", difficulty="easy", task="returns True if all the strings of `words` have the same number of characters (True for an empty list or a single string), and False otherwise.", ref="""
def all_same_length(words: list[str]) -> bool:
    return len({len(w) for w in words}) <= 1
""", cases=[([["ab", "cd", "ef"]], True), ([["a", "bc"]], False), ([[]], True), ([["hello"]], True), ([["abc", "abc", "ab"]], False), ([["", ""]], True), ([["x", "y", "zz", "w"]], False)]),
    dict(split="train", difficulty="easy", task="returns a list with the greeting \"Hello, <name>!\" for each name of `names`, in order.", ref="""
def greet_all(names: list[str]) -> list[str]:
    return [f"Hello, {name}!" for name in names]
""", cases=[([["Ann", "Bob"]], ["Hello, Ann!", "Hello, Bob!"]), ([[]], []), ([["World"]], ["Hello, World!"]), ([["a", "b", "c"]], ["Hello, a!", "Hello, b!", "Hello, c!"]), ([[""]], ["Hello, !"])]),
    dict(split="heldout", difficulty="easy", task="returns a list with the number of vowels (a, e, i, o and u, in upper or lower case) in each string of `words`, in order.", ref="""
def vowel_counts(words: list[str]) -> list[int]:
    return [sum(1 for ch in w.lower() if ch in "aeiou") for w in words]
""", cases=[([["hello", "sky"]], [2, 0]), ([[]], []), ([[""]], [0]), ([["AEIOU", "Banana"]], [5, 3]), ([["rhythm", "Queue", "a"]], [0, 4, 1])]),
    dict(split="heldout", difficulty="easy", task="returns the strings of `words` that have an even number of characters (0 counts as even), in their original order.", ref="""
def even_length_words(words: list[str]) -> list[str]:
    return [w for w in words if len(w) % 2 == 0]
""", cases=[([["ab", "abc", "abcd"]], ["ab", "abcd"]), ([[]], []), ([["a", "xyz"]], []), ([["", "x"]], [""]), ([["tree", "sky", "go", "hello"]], ["tree", "go"])]),
    dict(split="heldout", difficulty="easy", task="returns the strings of `words` sorted in alphabetical order (as Python sorts strings) and joined into one string with a single space between them.", ref="""
def sorted_sentence(words: list[str]) -> str:
    return " ".join(sorted(words))
""", cases=[([["pear", "apple", "fig"]], "apple fig pear"), ([[]], ""), ([["one"]], "one"), ([["b", "a", "b"]], "a b b"), ([["dog", "cat", "ant", "bee"]], "ant bee cat dog")]),
    dict(split="heldout", difficulty="easy", task="receives `strs`, a non-empty list of strings that each hold a whole number such as \"42\" or \"-7\", and returns the largest of those numbers as an int.", ref="""
def largest_written_number(strs: list[str]) -> int:
    return max(int(x) for x in strs)
""", cases=[([["3", "12", "7"]], 12), ([["5"]], 5), ([["-1", "-20"]], -1), ([["100", "99"]], 100), ([["0", "-3", "2"]], 2), ([["9", "10"]], 10)]),

    # ------------------------------------------------------------------ numbers and small values
    dict(split="heldout", difficulty="easy", task="returns the first (most significant) decimal digit of the non-negative integer `n`.", ref="""
def first_digit(n: int) -> int:
    return int(str(n)[0])
""", cases=[([123], 1), ([7], 7), ([0], 0), ([980], 9), ([5021], 5), ([46], 4)]),
    dict(split="heldout", difficulty="easy", task="returns the non-negative integer `n` with its last decimal digit removed (so 1234 gives 123, and a one-digit number gives 0).", ref="""
def drop_last_digit(n: int) -> int:
    return n // 10
""", cases=[([1234], 123), ([7], 0), ([0], 0), ([10], 1), ([99], 9), ([500], 50)]),
    dict(split="heldout", difficulty="easy", task="returns the largest decimal digit of the non-negative integer `n`.", ref="""
def largest_digit(n: int) -> int:
    return max(int(d) for d in str(n))
""", cases=[([1234], 4), ([7], 7), ([0], 0), ([908], 9), ([5555], 5), ([3141], 4)]),
    dict(split="heldout", difficulty="easy", task="returns the product of the decimal digits of the non-negative integer `n`.", ref="""
def product_of_digits(n: int) -> int:
    result = 1
    for d in str(n):
        result *= int(d)
    return result
""", cases=[([123], 6), ([7], 7), ([0], 0), ([105], 0), ([999], 729), ([24], 8)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the integers `a` and `b`.", ref="""
def add(a: int, b: int) -> int:
    return a + b
""", cases=[([2, 3], 5), ([0, 0], 0), ([-4, 4], 0), ([10, -3], 7), ([100, 250], 350), ([-1, -1], -2)]),
    dict(split="heldout", difficulty="easy", task="returns the smallest integer that is greater than or equal to the number `x` (so 2.1 gives 3, 2.0 gives 2 and -2.5 gives -2).", ref="""
def round_up(x: float) -> int:
    import math
    return math.ceil(x)
""", cases=[([2.1], 3), ([2.0], 2), ([-2.5], -2), ([0.0], 0), ([7.9], 8), ([-0.5], 0), ([3.01], 4)]),
    dict(split="heldout", difficulty="easy", task="returns the number `x` rounded with `round` to `digits` decimal places, where `digits` is 2 when the function is called without it.", ref="""
def round_to(x: float, digits: int = 2) -> float:
    return round(x, digits)
""", cases=[([3.14159], 3.14), ([2.71828, 3], 2.718), ([10.0, 1], 10.0), ([-7.891, 1], -7.9), ([0.1234], 0.12), ([5.6789, 1], 5.7), ([1.23456, 4], 1.2346)]),
    dict(split="heldout", difficulty="easy", task="returns the whole-number part of the number `x` as an int, dropping the digits after the decimal point (so 3.7 gives 3 and -3.7 gives -3).", ref="""
def integer_part(x: float) -> int:
    return int(x)
""", cases=[([3.7], 3), ([-3.7], -3), ([0.5], 0), ([5.0], 5), ([-0.9], 0), ([12.25], 12)]),
    dict(split="heldout", difficulty="easy", task="returns 1 divided by the non-zero number `x`, as a float.", ref="""
def reciprocal(x: float) -> float:
    return 1 / x
""", cases=[([2], 0.5), ([4], 0.25), ([-5], -0.2), ([1], 1.0), ([0.5], 2.0), ([8], 0.125)]),
    dict(split="heldout", difficulty="easy", task="returns the largest integer whose square is at most the non-negative integer `n` (so 10 gives 3 and 16 gives 4).", ref="""
def floor_sqrt(n: int) -> int:
    import math
    return math.isqrt(n)
""", cases=[([10], 3), ([16], 4), ([0], 0), ([1], 1), ([15], 3), ([99], 9), ([100], 10)]),
    dict(split="heldout", difficulty="easy", task="converts the string `s`, which holds a number such as \"3.5\" or \"-2\", to a float.", ref="""
def to_float(s: str) -> float:
    return float(s)
""", cases=[(["3.5"], 3.5), (["-2"], -2.0), (["0"], 0.0), (["10.25"], 10.25), (["  7.5 "], 7.5), (["1e3"], 1000.0)]),
    dict(split="heldout", difficulty="easy", task="returns True if `x` is truthy and False if it is falsy, the way `if x:` decides (0, \"\", None, False and empty lists are falsy).", ref="""
def is_truthy(x) -> bool:
    return bool(x)
""", cases=[([0], False), ([5], True), ([""], False), (["a"], True), ([[]], False), ([[0]], True), ([None], False)]),
    dict(split="heldout", difficulty="easy", task="returns the two values `a` and `b` swapped, as the list `[b, a]`.", ref="""
def swap(a, b) -> list:
    return [b, a]
""", cases=[([1, 2], [2, 1]), (["x", "y"], ["y", "x"]), ([0, 0], [0, 0]), ([None, 5], [5, None]), ([[1], "a"], ["a", [1]])]),
    dict(split="heldout", difficulty="easy", task="returns the integers `a` and `b` as a list in ascending order, the smaller one first.", ref="""
def sorted_pair(a: int, b: int) -> list[int]:
    return sorted([a, b])
""", cases=[([3, 1], [1, 3]), ([1, 3], [1, 3]), ([5, 5], [5, 5]), ([-2, 0], [-2, 0]), ([10, -10], [-10, 10])]),
    dict(split="heldout", difficulty="easy", task="returns the point reached by moving the point (`x`, `y`) by `dx` along x and by `dy` along y, as the list `[x + dx, y + dy]`.", ref="""
def move_point(x: int, y: int, dx: int, dy: int) -> list[int]:
    return [x + dx, y + dy]
""", cases=[([1, 2, 3, 4], [4, 6]), ([0, 0, 0, 0], [0, 0]), ([5, 5, -5, -5], [0, 0]), ([-1, 3, 2, 0], [1, 3]), ([10, -4, 0, 7], [10, 3])]),
    dict(split="heldout", difficulty="easy", task="returns the point (`x`, `y`) written as a string: \"(\", `x`, a comma and a space, `y`, then \")\" (so 3 and -4 give \"(3, -4)\").", ref="""
def format_point(x: int, y: int) -> str:
    return f"({x}, {y})"
""", cases=[([3, -4], "(3, -4)"), ([0, 0], "(0, 0)"), ([10, 20], "(10, 20)"), ([-1, 5], "(-1, 5)"), ([7, 7], "(7, 7)")]),
    dict(split="heldout", difficulty="easy", task="returns the JSON text of the dictionary `d`, exactly as `json.dumps(d)` writes it.", ref="""
def to_json(d: dict) -> str:
    import json
    return json.dumps(d)
""", cases=[([{"a": 1}], '{"a": 1}'), ([{}], "{}"), ([{"x": [1, 2]}], '{"x": [1, 2]}'), ([{"ok": True, "n": None}], '{"ok": true, "n": null}'), ([{"name": "Bo", "age": 3}], '{"name": "Bo", "age": 3}')]),
    dict(split="heldout", difficulty="easy", task="parses the JSON text `s` and returns the Python value it describes (a JSON object gives a dict, an array a list).", ref="""
def from_json(s: str):
    import json
    return json.loads(s)
""", cases=[(['{"a": 1}'], {"a": 1}), (["[1, 2, 3]"], [1, 2, 3]), (["{}"], {}), (['{"ok": true, "n": null}'], {"ok": True, "n": None}), (['"hi"'], "hi"), (["42"], 42)]),
    dict(split="heldout", difficulty="easy", task="returns \"pass\" if `score` is 50 or more and \"fail\" otherwise.", ref="""
def pass_or_fail(score: int) -> str:
    return "pass" if score >= 50 else "fail"
""", cases=[([50], "pass"), ([49], "fail"), ([51], "pass"), ([0], "fail"), ([100], "pass"), ([20], "fail")]),
    dict(split="heldout", difficulty="easy", task="returns True if the integers `a` and `b` are both even or both odd, and False otherwise.", ref="""
def same_parity(a: int, b: int) -> bool:
    return a % 2 == b % 2
""", cases=[([2, 4], True), ([1, 3], True), ([2, 3], False), ([0, 7], False), ([-1, 5], True), ([10, 0], True), ([9, 8], False)]),
    dict(split="heldout", difficulty="easy", task="returns how many positional arguments it was called with (it may be called with any number of them, even none).", ref="""
def count_args(*args) -> int:
    return len(args)
""", cases=[([1, 2, 3], 3), ([], 0), (["a"], 1), ([None, None], 2), ([1, "b", [2], 4.0, 5], 5)]),
    dict(split="train", difficulty="easy", task="returns a list with the sum of the decimal digits of each non-negative integer of `nums`, in order.", ref="""
def digit_sums(nums: list[int]) -> list[int]:
    return [sum(int(d) for d in str(n)) for n in nums]
""", cases=[([[12, 345]], [3, 12]), ([[]], []), ([[0]], [0]), ([[7, 99, 1001]], [7, 18, 2]), ([[500, 11]], [5, 2])]),

    # ------------------------------------------------------------------ dictionaries
    dict(split="heldout", difficulty="easy", task="returns the value stored under `key` in the dictionary `d`, or `default` if `d` has no key `key`.", ref="""
def get_or_default(d: dict, key: str, default):
    return d.get(key, default)
""", cases=[([{"a": 1}, "a", 0], 1), ([{"a": 1}, "b", 0], 0), ([{}, "x", "none"], "none"), ([{"k": None}, "k", 5], None), ([{"x": 2, "y": 3}, "y", -1], 3), ([{"x": 0}, "x", 9], 0)]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a list of `[key, value]` lists, and returns a dictionary mapping each key to its value (when a key repeats, its last value wins).", ref="""
def pairs_to_dict(pairs: list[list]) -> dict:
    return dict(pairs)
""", cases=[([[["a", 1], ["b", 2]]], {"a": 1, "b": 2}), ([[]], {}), ([[["x", 0]]], {"x": 0}), ([[["a", 1], ["a", 5]]], {"a": 5}), ([[["k", [1, 2]], ["j", "v"]]], {"k": [1, 2], "j": "v"})]),
    dict(split="heldout", difficulty="easy", task="returns a dictionary that maps every string of the list `keys` to the same `value`.", ref="""
def dict_from_keys(keys: list[str], value) -> dict:
    return dict.fromkeys(keys, value)
""", cases=[([["a", "b"], 0], {"a": 0, "b": 0}), ([[], 1], {}), ([["x"], None], {"x": None}), ([["p", "q", "r"], "on"], {"p": "on", "q": "on", "r": "on"}), ([["a", "a"], 3], {"a": 3})]),
    dict(split="heldout", difficulty="easy", task="returns the keys of the dictionary `d` as a list, in the dictionary's order.", ref="""
def key_list(d: dict) -> list:
    return list(d)
""", cases=[([{"a": 1, "b": 2}], ["a", "b"]), ([{}], []), ([{"z": 0, "a": 0}], ["z", "a"]), ([{"only": "one"}], ["only"]), ([{"x": 1, "y": 2, "w": 3}], ["x", "y", "w"])]),
    dict(split="heldout", difficulty="easy", task="returns True if `value` is one of the values (not the keys) stored in the dictionary `d`, and False otherwise.", ref="""
def has_value(d: dict, value) -> bool:
    return value in d.values()
""", cases=[([{"a": 1, "b": 2}, 2], True), ([{"a": 1, "b": 2}, 3], False), ([{"a": 1}, "a"], False), ([{}, 0], False), ([{"x": "y"}, "y"], True), ([{"p": 0, "q": 5}, 0], True)]),
    dict(split="heldout", difficulty="easy", task="receives `scores`, a non-empty dictionary mapping names to numbers, and returns the name with the highest number (the first such name in the dictionary's order if several tie).", ref="""
def top_scorer(scores: dict) -> str:
    return max(scores, key=scores.get)
""", cases=[([{"ann": 5, "bob": 9, "cy": 7}], "bob"), ([{"solo": 1}], "solo"), ([{"a": 3, "b": 3}], "a"), ([{"x": -1, "y": -5}], "x"), ([{"p": 0, "q": 10, "r": 10}], "q")]),
    dict(split="heldout", difficulty="easy", task="returns a copy of the dictionary `d` in which `key` holds `value` (the entry is added, or replaced if `key` is already there); `d` itself is not modified.", ref="""
def with_entry(d: dict, key: str, value) -> dict:
    new = dict(d)
    new[key] = value
    return new
""", cases=[([{"a": 1}, "b", 2], {"a": 1, "b": 2}), ([{"a": 1}, "a", 5], {"a": 5}), ([{}, "x", None], {"x": None}), ([{"p": 0, "q": 1}, "r", [1]], {"p": 0, "q": 1, "r": [1]}), ([{"k": "v"}, "k", "w"], {"k": "w"})]),
    dict(split="heldout", difficulty="easy", task="returns a new dictionary with the same keys as `d`, each value of `d` multiplied by `factor`.", ref="""
def scale_values(d: dict, factor: int) -> dict:
    return {k: v * factor for k, v in d.items()}
""", cases=[([{"a": 1, "b": 2}, 3], {"a": 3, "b": 6}), ([{}, 5], {}), ([{"x": 7}, 0], {"x": 0}), ([{"p": -2, "q": 4}, -1], {"p": 2, "q": -4}), ([{"n": 5}, 1], {"n": 5})]),
    dict(split="heldout", difficulty="easy", task="returns a list with one string \"<key>=<value>\" for each entry of the dictionary `d`, in the dictionary's order.", ref="""
def key_value_strings(d: dict) -> list[str]:
    return [f"{k}={v}" for k, v in d.items()]
""", cases=[([{"a": 1, "b": 2}], ["a=1", "b=2"]), ([{}], []), ([{"name": "Ann"}], ["name=Ann"]), ([{"x": -3, "y": 0}], ["x=-3", "y=0"]), ([{"ok": True}], ["ok=True"])]),
    dict(split="heldout", difficulty="easy", task="receives `d`, a dictionary whose values are lists, and returns a new dictionary mapping each key of `d` to the length of its list.", ref="""
def list_sizes(d: dict) -> dict:
    return {k: len(v) for k, v in d.items()}
""", cases=[([{"a": [1, 2], "b": []}], {"a": 2, "b": 0}), ([{}], {}), ([{"x": ["p", "q", "r"]}], {"x": 3}), ([{"one": [0], "two": [0, 0]}], {"one": 1, "two": 2}), ([{"s": ["a", "b", "c", "d"], "t": [[1, 2]]}], {"s": 4, "t": 1})]),
    dict(split="heldout", difficulty="easy", task="returns a new dictionary with the entries of `d` whose value is not None.", ref="""
def drop_none_values(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
""", cases=[([{"a": 1, "b": None}], {"a": 1}), ([{}], {}), ([{"x": None}], {}), ([{"p": 0, "q": "", "r": None}], {"p": 0, "q": ""}), ([{"k": [None]}], {"k": [None]})]),
    dict(split="heldout", difficulty="easy", task="receives `people`, a list of dictionaries that each have the keys \"name\" and \"age\", and returns a dictionary mapping each name to its age.", ref="""
def name_to_age(people: list[dict]) -> dict:
    return {p["name"]: p["age"] for p in people}
""", cases=[([[{"name": "Ann", "age": 30}, {"name": "Bob", "age": 25}]], {"Ann": 30, "Bob": 25}), ([[]], {}), ([[{"name": "Cy", "age": 0}]], {"Cy": 0}), ([[{"age": 9, "name": "Di"}, {"name": "Ed", "age": 41}]], {"Di": 9, "Ed": 41}), ([[{"name": "A", "age": 1, "city": "X"}]], {"A": 1})]),
    dict(split="heldout", difficulty="easy", task="receives `d`, a dictionary whose values are lists of numbers, and returns a new dictionary mapping each key of `d` to the sum of its list (0 for an empty list).", ref="""
def totals_by_key(d: dict) -> dict:
    return {k: sum(v) for k, v in d.items()}
""", cases=[([{"a": [1, 2], "b": [5]}], {"a": 3, "b": 5}), ([{}], {}), ([{"x": []}], {"x": 0}), ([{"p": [-1, 1, 4], "q": [10, 20, 30]}], {"p": 4, "q": 60}), ([{"z": [7]}], {"z": 7})]),

    # ------------------------------------------------------------------ sets
    dict(split="heldout", difficulty="easy", task="returns, in ascending order and each listed once, every value that occurs in the list `a`, in the list `b`, or in both.", ref="""
def union_sorted(a: list[int], b: list[int]) -> list[int]:
    return sorted(set(a) | set(b))
""", cases=[([[1, 3], [2, 3]], [1, 2, 3]), ([[], []], []), ([[5, 5], []], [5]), ([[], [2, 1]], [1, 2]), ([[4, -1], [0, 4, 9]], [-1, 0, 4, 9])]),
    dict(split="heldout", difficulty="easy", task="returns, in ascending order and each listed once, the values that occur in exactly one of the lists `a` and `b` (in one of them but not in the other).", ref="""
def in_exactly_one(a: list[int], b: list[int]) -> list[int]:
    return sorted(set(a) ^ set(b))
""", cases=[([[1, 2, 3], [2, 3, 4]], [1, 4]), ([[], []], []), ([[1, 1], [1]], []), ([[5], []], [5]), ([[3, 1], [2, 2]], [1, 2, 3]), ([[7, 8, 9], [9, 0]], [0, 7, 8])]),
    dict(split="heldout", difficulty="easy", task="returns True if the lists `a` and `b` have at least one value in common, and False otherwise.", ref="""
def have_common(a: list, b: list) -> bool:
    return not set(a).isdisjoint(b)
""", cases=[([[1, 2], [2, 3]], True), ([[1, 2], [3, 4]], False), ([[], [1]], False), ([["x"], ["x"]], True), ([[], []], False), ([[5, 6, 7], [7]], True)]),

    # ------------------------------------------------------------------ grids (lists of rows)
    dict(split="heldout", difficulty="easy", task="returns column `c` of `grid`, a list of rows: the item at index `c` of every row, from the first row to the last.", ref="""
def get_column(grid: list[list[int]], c: int) -> list[int]:
    return [row[c] for row in grid]
""", cases=[([[[1, 2], [3, 4]], 0], [1, 3]), ([[[1, 2], [3, 4]], 1], [2, 4]), ([[], 0], []), ([[[5, 6, 7]], 2], [7]), ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], 1], [2, 5, 8])]),
    dict(split="heldout", difficulty="easy", task="returns the value in row `r`, column `c` of `grid`, a list of rows (rows and columns are counted from 0).", ref="""
def cell_value(grid: list[list[int]], r: int, c: int) -> int:
    return grid[r][c]
""", cases=[([[[1, 2], [3, 4]], 0, 1], 2), ([[[1, 2], [3, 4]], 1, 0], 3), ([[[9]], 0, 0], 9), ([[[1, 2, 3], [4, 5, 6]], 1, 2], 6), ([[[7, 8], [9, 10], [11, 12]], 2, 1], 12)]),
    dict(split="heldout", difficulty="easy", task="returns the largest number in `grid`, a non-empty list of non-empty rows of numbers.", ref="""
def grid_max(grid: list[list[int]]) -> int:
    return max(max(row) for row in grid)
""", cases=[([[[1, 2], [3, 4]]], 4), ([[[5]]], 5), ([[[9, 1], [2, 3]]], 9), ([[[-5, -2], [-9, -3]]], -2), ([[[0, 7, 1], [6, 2, 8], [3, 4, 5]]], 8)]),
    dict(split="train", difficulty="easy", task="returns a grid of `rows` rows, each a list of `cols` zeros (`rows` = 0 gives []).", ref="""
def zero_grid(rows: int, cols: int) -> list[list[int]]:
    return [[0] * cols for _ in range(rows)]
""", cases=[([2, 3], [[0, 0, 0], [0, 0, 0]]), ([0, 5], []), ([1, 1], [[0]]), ([3, 0], [[], [], []]), ([1, 4], [[0, 0, 0, 0]])]),
    dict(split="heldout", difficulty="easy", task="returns True if the value `x` occurs in some row of `grid`, a list of rows, and False otherwise.", ref="""
def grid_contains(grid: list[list[int]], x: int) -> bool:
    return any(x in row for row in grid)
""", cases=[([[[1, 2], [3, 4]], 3], True), ([[[1, 2], [3, 4]], 5], False), ([[], 1], False), ([[[], [7]], 7], True), ([[[0, 0], [0, 0]], 0], True), ([[[1]], 2], False)]),
    dict(split="heldout", difficulty="easy", task="returns a list with the largest number of each row of `grid`, a list of non-empty rows, from the first row to the last.", ref="""
def row_maxima(grid: list[list[int]]) -> list[int]:
    return [max(row) for row in grid]
""", cases=[([[[1, 5, 2], [7, 3]]], [5, 7]), ([[]], []), ([[[4]]], [4]), ([[[-1, -2], [0, -9]]], [-1, 0]), ([[[3, 3], [1, 8, 2], [6]]], [3, 8, 6])]),
    dict(split="heldout", difficulty="easy", task="returns the largest row sum of `grid`, a non-empty list of rows of numbers: add up the numbers of each row and return the biggest of those totals.", ref="""
def largest_row_sum(grid: list[list[int]]) -> int:
    return max(sum(row) for row in grid)
""", cases=[([[[1, 2], [3, 4]]], 7), ([[[5]]], 5), ([[[9, 1], [2, 3]]], 10), ([[[-5, -2], [-9, -3]]], -7), ([[[0, 7, 1], [6, 2, 8], []]], 16)]),
    dict(split="heldout", difficulty="easy", task="returns all the numbers of `grid`, a list of rows of numbers, in one list sorted in ascending order.", ref="""
def sorted_all(grid: list[list[int]]) -> list[int]:
    return sorted(x for row in grid for x in row)
""", cases=[([[[3, 1], [2, 5]]], [1, 2, 3, 5]), ([[]], []), ([[[], [4]]], [4]), ([[[9, -1, 0]]], [-1, 0, 9]), ([[[2, 2], [1], [2]]], [1, 2, 2, 2])]),
    dict(split="heldout", difficulty="easy", task="returns a new grid in which every number of `grid`, a list of rows of numbers, is multiplied by `k`; the rows keep their order and their lengths.", ref="""
def scale_grid(grid: list[list[int]], k: int) -> list[list[int]]:
    return [[x * k for x in row] for row in grid]
""", cases=[([[[1, 2], [3, 4]], 2], [[2, 4], [6, 8]]), ([[], 5], []), ([[[7]], 0], [[0]]), ([[[1, -1], [], [5]], -3], [[-3, 3], [], [-15]]), ([[[2, 3, 4]], 1], [[2, 3, 4]])]),
]
