"""Very easy problems of the problem bank, all held out (checked by data/problems/bank_check.py): one- to
five-line functions at the level the base student solves some of the time, to give the held-out pass rate
something to move."""
PROBLEMS = [
    dict(split="heldout", difficulty="easy", task="returns the average of the integers `a` and `b` as a float.", ref="""
def average_of_two(a: int, b: int) -> float:
    return (a + b) / 2
""", cases=[([2, 4], 3.0), ([1, 2], 1.5), ([-3, 3], 0.0), ([0, 0], 0.0), ([7, 10], 8.5), ([-5, -8], -6.5)]),
    dict(split="train", difficulty="easy", task="returns the perimeter of a rectangle with the integer side lengths `width` and `height` (the total length of its four sides).", ref="""
def rectangle_perimeter(width: int, height: int) -> int:
    return 2 * (width + height)
""", cases=[([3, 4], 14), ([0, 5], 10), ([1, 1], 4), ([10, 2], 24), ([7, 0], 14), ([6, 9], 30)]),
    dict(split="heldout", difficulty="easy", task="returns the area of a triangle with base `base` and height `height`, which is half of their product, as a float.", ref="""
def triangle_area(base: int, height: int) -> float:
    return base * height / 2
""", cases=[([4, 3], 6.0), ([5, 3], 7.5), ([0, 9], 0.0), ([1, 1], 0.5), ([10, 10], 50.0), ([7, 2], 7.0)]),
    dict(split="train", difficulty="easy", task="returns the area of a circle of radius `r` (pi times `r` squared, using `math.pi`), rounded to 2 decimal places.", ref="""
def circle_area(r: int) -> float:
    import math
    return round(math.pi * r * r, 2)
""", cases=[([1], 3.14), ([2], 12.57), ([0], 0.0), ([10], 314.16), ([3], 28.27), ([5], 78.54)]),
    dict(split="train", difficulty="easy", task="returns the length of the hypotenuse of a right triangle whose two shorter sides are `a` and `b` (the square root of a * a + b * b), rounded to 2 decimal places.", ref="""
def hypotenuse(a: int, b: int) -> float:
    return round((a * a + b * b) ** 0.5, 2)
""", cases=[([3, 4], 5.0), ([5, 12], 13.0), ([1, 1], 1.41), ([2, 3], 3.61), ([6, 8], 10.0), ([1, 2], 2.24)]),
    dict(split="heldout", difficulty="easy", task="returns the volume of a rectangular box with edge lengths `length`, `width` and `height`.", ref="""
def box_volume(length: int, width: int, height: int) -> int:
    return length * width * height
""", cases=[([2, 3, 4], 24), ([1, 1, 1], 1), ([5, 0, 7], 0), ([10, 2, 3], 60), ([3, 3, 3], 27), ([6, 1, 2], 12)]),
    dict(split="heldout", difficulty="easy", task="returns the total number of seconds in `hours` hours, `minutes` minutes and `seconds` seconds.", ref="""
def total_seconds(hours: int, minutes: int, seconds: int) -> int:
    return hours * 3600 + minutes * 60 + seconds
""", cases=[([1, 0, 0], 3600), ([0, 1, 0], 60), ([0, 0, 45], 45), ([2, 30, 15], 9015), ([0, 0, 0], 0), ([1, 1, 1], 3661)]),
    dict(split="train", difficulty="easy", task="returns how many complete weeks of 7 days there are in `days` days (`days` is never negative).", ref="""
def whole_weeks(days: int) -> int:
    return days // 7
""", cases=[([14], 2), ([13], 1), ([0], 0), ([6], 0), ([7], 1), ([100], 14)]),
    dict(split="train", difficulty="easy", task="returns how many years old a person born in the year `birth_year` becomes in the year `year`.", ref="""
def age_in_year(birth_year: int, year: int) -> int:
    return year - birth_year
""", cases=[([2000, 2024], 24), ([1990, 1990], 0), ([1985, 2000], 15), ([2010, 2011], 1), ([1950, 2025], 75)]),
    dict(split="heldout", difficulty="easy", task="returns True if the number `x` has no fractional part (like 3.0 or -2.0) and False otherwise (like 2.5).", ref="""
def is_whole_number(x: float) -> bool:
    return x == int(x)
""", cases=[([3.0], True), ([2.5], False), ([0.0], True), ([-2.0], True), ([-0.5], False), ([7.25], False), ([100.0], True)]),
    dict(split="train", difficulty="easy", task="returns True if `age` is from 13 to 19 inclusive (a teenager) and False otherwise.", ref="""
def is_teen(age: int) -> bool:
    return 13 <= age <= 19
""", cases=[([13], True), ([19], True), ([12], False), ([20], False), ([15], True), ([0], False), ([45], False)]),
    dict(split="train", difficulty="medium", task="returns whichever of the integers `a` and `b` is further from zero; if both are equally far from zero, it returns `a`.", ref="""
def bigger_by_abs(a: int, b: int) -> int:
    return a if abs(a) >= abs(b) else b
""", cases=[([3, -5], -5), ([-7, 2], -7), ([4, -4], 4), ([-4, 4], -4), ([0, 1], 1), ([0, 0], 0), ([10, 9], 10)]),
    dict(split="train", difficulty="medium", task="returns how many minutes pass from the time `h1`:`m1` to the later time `h2`:`m2` of the same day (hours 0 to 23, minutes 0 to 59).", ref="""
def minutes_apart(h1: int, m1: int, h2: int, m2: int) -> int:
    return (h2 * 60 + m2) - (h1 * 60 + m1)
""", cases=[([9, 0, 10, 30], 90), ([8, 15, 8, 45], 30), ([0, 0, 23, 59], 1439), ([12, 50, 13, 10], 20), ([7, 7, 7, 7], 0), ([1, 30, 3, 0], 90)]),
    dict(split="heldout", difficulty="easy", task="returns the value of `a` * x * x + `b` * x + `c` at the point `x`.", ref="""
def quadratic(a: int, b: int, c: int, x: int) -> int:
    return a * x * x + b * x + c
""", cases=[([1, 2, 3, 2], 11), ([0, 0, 5, 10], 5), ([1, 0, 0, -3], 9), ([2, -3, 1, 1], 0), ([1, 1, 1, 0], 1), ([3, 2, -1, 2], 15)]),
    dict(split="train", difficulty="easy", task="returns how many pizza slices are left after `eaten` slices are eaten from `pizzas` pizzas that are each cut into `slices` slices.", ref="""
def slices_left(pizzas: int, slices: int, eaten: int) -> int:
    return pizzas * slices - eaten
""", cases=[([2, 8, 5], 11), ([1, 6, 6], 0), ([3, 4, 0], 12), ([0, 8, 0], 0), ([5, 10, 17], 33), ([1, 12, 1], 11)]),
    dict(split="train", difficulty="easy", task="returns the body mass index for a weight of `weight` kilograms and a height of `height` metres: the weight divided by the square of the height, rounded to 1 decimal place.", ref="""
def bmi(weight: float, height: float) -> float:
    return round(weight / (height * height), 1)
""", cases=[([70, 1.75], 22.9), ([50, 1.6], 19.5), ([90, 2.0], 22.5), ([100, 1.8], 30.9), ([60, 1.5], 26.7), ([81, 1.8], 25.0)]),
    dict(split="train", difficulty="medium", task="returns the percentage change from `old` to `new` (positive for an increase, negative for a decrease), that is (new - old) / old * 100, rounded to 1 decimal place; `old` is never zero.", ref="""
def percent_change(old: int, new: int) -> float:
    return round((new - old) / old * 100, 1)
""", cases=[([50, 75], 50.0), ([200, 150], -25.0), ([80, 80], 0.0), ([3, 4], 33.3), ([40, 10], -75.0), ([7, 15], 114.3)]),
    dict(split="train", difficulty="easy", task="returns the score on a quiz where each correct answer earns 4 points and each wrong answer loses 1 point, given `correct` correct answers and `wrong` wrong answers.", ref="""
def quiz_score(correct: int, wrong: int) -> int:
    return 4 * correct - wrong
""", cases=[([10, 0], 40), ([0, 3], -3), ([5, 5], 15), ([0, 0], 0), ([7, 2], 26), ([1, 10], -6)]),
    dict(split="train", difficulty="easy", task="returns the total number of legs on a farm with `chickens` chickens (2 legs each) and `cows` cows (4 legs each).", ref="""
def legs_count(chickens: int, cows: int) -> int:
    return 2 * chickens + 4 * cows
""", cases=[([1, 1], 6), ([0, 3], 12), ([5, 0], 10), ([0, 0], 0), ([3, 2], 14), ([10, 10], 60)]),
    dict(split="train", difficulty="easy", task="returns the list of the first `count` positive multiples of `k`: k, 2 * k, 3 * k, and so on (`count` = 0 gives []).", ref="""
def multiples_of(k: int, count: int) -> list[int]:
    return [k * i for i in range(1, count + 1)]
""", cases=[([3, 4], [3, 6, 9, 12]), ([5, 0], []), ([7, 1], [7]), ([1, 5], [1, 2, 3, 4, 5]), ([10, 3], [10, 20, 30]), ([-2, 3], [-2, -4, -6])]),
    dict(split="heldout", difficulty="easy", task="returns the list of the squares of the integers from 1 to `n`, that is [1, 4, 9, ..., n * n] ([] when `n` is 0).", ref="""
def first_squares(n: int) -> list[int]:
    return [i * i for i in range(1, n + 1)]
""", cases=[([4], [1, 4, 9, 16]), ([0], []), ([1], [1]), ([6], [1, 4, 9, 16, 25, 36]), ([2], [1, 4]), ([3], [1, 4, 9])]),
    dict(split="train", difficulty="easy", task="returns the list of the integers from `n` down to 1, that is [n, n - 1, ..., 1] ([] when `n` is 0).", ref="""
def countdown(n: int) -> list[int]:
    return list(range(n, 0, -1))
""", cases=[([3], [3, 2, 1]), ([0], []), ([1], [1]), ([5], [5, 4, 3, 2, 1]), ([2], [2, 1]), ([7], [7, 6, 5, 4, 3, 2, 1])]),
    dict(split="train", difficulty="easy", task="returns the list of the first `n` powers of two, starting from 1: [1, 2, 4, 8, ...] ([] when `n` is 0).", ref="""
def powers_of_two(n: int) -> list[int]:
    return [2 ** i for i in range(n)]
""", cases=[([4], [1, 2, 4, 8]), ([0], []), ([1], [1]), ([6], [1, 2, 4, 8, 16, 32]), ([2], [1, 2]), ([10], [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])]),
    dict(split="heldout", difficulty="easy", task="returns a list of `n` zeros (`n` is never negative).", ref="""
def zeros(n: int) -> list[int]:
    return [0] * n
""", cases=[([3], [0, 0, 0]), ([0], []), ([1], [0]), ([5], [0, 0, 0, 0, 0]), ([2], [0, 0])]),
    dict(split="heldout", difficulty="easy", task="returns `s` with every upper-case letter turned into lower case and every lower-case letter turned into upper case; other characters stay as they are.", ref="""
def swap_case(s: str) -> str:
    return s.swapcase()
""", cases=[(["Hello"], "hELLO"), (["abc"], "ABC"), (["XYZ"], "xyz"), ([""], ""), (["a1B2"], "A1b2"), (["Good Day!"], "gOOD dAY!")]),
    dict(split="train", difficulty="easy", task="returns `s` with every vowel (a, e, i, o and u, in upper or lower case) removed.", ref="""
def remove_vowels(s: str) -> str:
    return "".join(ch for ch in s if ch.lower() not in "aeiou")
""", cases=[(["hello"], "hll"), (["AEIOU"], ""), (["rhythm"], "rhythm"), ([""], ""), (["Banana Split"], "Bnn Splt"), (["Queue"], "Q")]),
    dict(split="heldout", difficulty="easy", task="returns True if the string `s` ends with a question mark \"?\" and False otherwise.", ref="""
def is_question(s: str) -> bool:
    return s.endswith("?")
""", cases=[(["How are you?"], True), (["Fine."], False), ([""], False), (["?"], True), (["Why? Because"], False), (["ok??"], True)]),
    dict(split="train", difficulty="easy", task="returns True if the first character of `s` is a letter (a-z or A-Z) and False otherwise, also False for an empty string.", ref="""
def starts_with_letter(s: str) -> bool:
    return s[:1].isalpha()
""", cases=[(["hello"], True), (["Zebra"], True), (["1abc"], False), ([""], False), ([" a"], False), (["_x"], False), (["a1"], True), (["x y"], True)]),
    dict(split="heldout", difficulty="easy", task="returns \"none\" if `n` is 0, \"one\" if `n` is 1 and \"many\" if `n` is larger (`n` is never negative).", ref="""
def describe_count(n: int) -> str:
    if n == 0:
        return "none"
    if n == 1:
        return "one"
    return "many"
""", cases=[([0], "none"), ([1], "one"), ([2], "many"), ([10], "many"), ([100], "many"), ([3], "many")]),
    dict(split="train", difficulty="easy", task="returns a string made of the first and the last character of `s` (a one-character string gives that character twice, and an empty string gives \"\").", ref="""
def first_and_last_char(s: str) -> str:
    return s[:1] + s[-1:]
""", cases=[(["hello"], "ho"), (["a"], "aa"), ([""], ""), (["ab"], "ab"), (["Python"], "Pn"), (["xyz"], "xz")]),
    dict(split="train", difficulty="medium", task="returns the whitespace-separated words of `s`, each with its characters reversed, in their original order and joined by single spaces.", ref="""
def reverse_each_word(s: str) -> str:
    return " ".join(w[::-1] for w in s.split())
""", cases=[(["hello world"], "olleh dlrow"), ([""], ""), (["abc"], "cba"), (["  a  bc "], "a cb"), (["Hi there you"], "iH ereht uoy"), (["racecar level"], "racecar level")]),
    dict(split="heldout", difficulty="easy", task="returns a list with the length of each string of `words`, in order.", ref="""
def string_lengths(words: list[str]) -> list[int]:
    return [len(w) for w in words]
""", cases=[([["a", "bb", "ccc"]], [1, 2, 3]), ([[]], []), ([[""]], [0]), ([["hello", "hi"]], [5, 2]), ([["x y", "z"]], [3, 1])]),
    dict(split="heldout", difficulty="easy", task="returns the integers written in `s`, a string of whole numbers separated by spaces, as a list of ints ([] when `s` holds no numbers).", ref="""
def parse_int_list(s: str) -> list[int]:
    return [int(x) for x in s.split()]
""", cases=[(["1 2 3"], [1, 2, 3]), ([""], []), (["42"], [42]), (["-5 10 0"], [-5, 10, 0]), (["  7   8 "], [7, 8]), (["100 200"], [100, 200])]),
    dict(split="train", difficulty="easy", task="returns the sum of the two integers written in the strings `a` and `b`, as an int.", ref="""
def add_number_strings(a: str, b: str) -> int:
    return int(a) + int(b)
""", cases=[(["12", "30"], 42), (["0", "0"], 0), (["-5", "8"], 3), (["100", "1"], 101), (["7", "-7"], 0), (["999", "1"], 1000)]),
    dict(split="heldout", difficulty="easy", task="returns `s` with a \"[\" added at its start and a \"]\" added at its end.", ref="""
def in_brackets(s: str) -> str:
    return "[" + s + "]"
""", cases=[(["hi"], "[hi]"), ([""], "[]"), (["a b"], "[a b]"), (["[x]"], "[[x]]"), (["42"], "[42]")]),
    dict(split="train", difficulty="easy", task="returns True if `s` contains at least one decimal digit (0-9) and False otherwise.", ref="""
def contains_digit(s: str) -> bool:
    return any(ch.isdigit() for ch in s)
""", cases=[(["abc1"], True), (["hello"], False), ([""], False), (["2024"], True), (["no digits here!"], False), (["a b 9 c"], True)]),
    dict(split="heldout", difficulty="easy", task="returns how many different values the list `items` contains (0 for an empty list).", ref="""
def count_distinct(items: list) -> int:
    return len(set(items))
""", cases=[([[1, 2, 2, 3]], 3), ([[]], 0), ([[5, 5, 5]], 1), ([["a", "b", "A"]], 3), ([[1, 2, 3, 4]], 4), ([[0, 0, 1]], 2)]),
    dict(split="train", difficulty="easy", task="returns `s` without its first and its last character (\"\" when `s` has fewer than three characters).", ref="""
def remove_first_and_last(s: str) -> str:
    return s[1:-1]
""", cases=[(["hello"], "ell"), (["ab"], ""), (["a"], ""), ([""], ""), (["abc"], "b"), (["[x, y]"], "x, y")]),
    dict(split="train", difficulty="medium", task="returns the first upper-case letter in `s`, or \"\" if `s` has none.", ref="""
def first_upper(s: str) -> str:
    for ch in s:
        if ch.isupper():
            return ch
    return ""
""", cases=[(["hello World"], "W"), (["abc"], ""), ([""], ""), (["ABC"], "A"), (["x1Y2Z"], "Y"), (["no Caps Here"], "C")]),
    dict(split="train", difficulty="easy", task="returns `s` with every decimal digit replaced by \"*\"; the other characters stay as they are.", ref="""
def hide_digits(s: str) -> str:
    return "".join("*" if ch.isdigit() else ch for ch in s)
""", cases=[(["pin 1234"], "pin ****"), (["abc"], "abc"), ([""], ""), (["a1b2"], "a*b*"), (["2024-01-05"], "****-**-**"), (["007"], "***")]),
    dict(split="train", difficulty="medium", task="returns `word` with every character that does not occur in the string `guessed` replaced by \"_\", as in a game of hangman.", ref="""
def hangman_mask(word: str, guessed: str) -> str:
    return "".join(ch if ch in guessed else "_" for ch in word)
""", cases=[(["apple", "pe"], "_pp_e"), (["cat", ""], "___"), (["cat", "tac"], "cat"), (["", "abc"], ""), (["banana", "a"], "_a_a_a"), (["hello", "xyz"], "_____")]),
    dict(split="train", difficulty="easy", task="returns the English name of month number `m`, from \"January\" for 1 to \"December\" for 12.", ref="""
def month_name(m: int) -> str:
    names = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"]
    return names[m - 1]
""", cases=[([1], "January"), ([12], "December"), ([2], "February"), ([7], "July"), ([10], "October"), ([5], "May")]),
    dict(split="heldout", difficulty="easy", task="returns True if the strings `a` and `b` have the same number of characters and False otherwise.", ref="""
def same_length(a: str, b: str) -> bool:
    return len(a) == len(b)
""", cases=[(["abc", "xyz"], True), (["a", "ab"], False), (["", ""], True), (["hello", "world"], True), (["hi", ""], False), (["aa", "a a"], False)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the even numbers in `nums` (0 if there are none).", ref="""
def sum_of_evens(nums: list[int]) -> int:
    return sum(x for x in nums if x % 2 == 0)
""", cases=[([[1, 2, 3, 4]], 6), ([[]], 0), ([[1, 3, 5]], 0), ([[-2, 7, 10]], 8), ([[0, 6]], 6), ([[2, 2, 2]], 6)]),
    dict(split="train", difficulty="easy", task="returns True if at least one number in `nums` is even and False otherwise (False for an empty list).", ref="""
def has_even(nums: list[int]) -> bool:
    return any(x % 2 == 0 for x in nums)
""", cases=[([[1, 3, 4]], True), ([[1, 3, 5]], False), ([[]], False), ([[0]], True), ([[-7, -2]], True), ([[9]], False)]),
    dict(split="train", difficulty="easy", task="returns a new list made of the items of `items` followed by `x`.", ref="""
def with_appended(items: list, x) -> list:
    return items + [x]
""", cases=[([[1, 2], 3], [1, 2, 3]), ([[], 5], [5]), ([["a"], "b"], ["a", "b"]), ([[1], 1], [1, 1]), ([[0, 0], None], [0, 0, None])]),
    dict(split="train", difficulty="easy", task="returns the sum of all the numbers in `grid`, a list of rows of numbers (0 for an empty grid).", ref="""
def grid_total(grid: list[list[int]]) -> int:
    return sum(sum(row) for row in grid)
""", cases=[([[[1, 2], [3, 4]]], 10), ([[]], 0), ([[[5]]], 5), ([[[1, -1], [0, 0]]], 0), ([[[1, 2, 3], [], [4]]], 10), ([[[10, 20], [30, 40], [50, 60]]], 210)]),
    dict(split="heldout", difficulty="easy", task="returns True if the list `items` has no items and False otherwise.", ref="""
def is_empty(items: list) -> bool:
    return len(items) == 0
""", cases=[([[]], True), ([[1]], False), ([[None]], False), ([[0, 0]], False), ([[[]]], False)]),
    dict(split="train", difficulty="medium", task="returns the largest even number in `nums`, or None if `nums` contains no even number.", ref="""
def largest_even(nums: list[int]):
    evens = [x for x in nums if x % 2 == 0]
    return max(evens) if evens else None
""", cases=[([[1, 4, 7, 2]], 4), ([[1, 3, 5]], None), ([[]], None), ([[-4, -2, -3]], -2), ([[0, 1]], 0), ([[8, 10, 9]], 10), ([[11, 6]], 6)]),
    dict(split="heldout", difficulty="easy", task="returns how many items of the list `items` are strings.", ref="""
def count_strings(items: list) -> int:
    return sum(1 for x in items if isinstance(x, str))
""", cases=[([[1, "a", "b", 2.5]], 2), ([[]], 0), ([[1, 2, 3]], 0), ([["", "x"]], 2), ([[None, "None", True]], 1), ([[["a"], "b"]], 1)]),
    dict(split="heldout", difficulty="easy", task="returns a list with every number of `nums` converted to a string, in order.", ref="""
def to_strings(nums: list[int]) -> list[str]:
    return [str(x) for x in nums]
""", cases=[([[1, 2, 3]], ["1", "2", "3"]), ([[]], []), ([[-5, 0]], ["-5", "0"]), ([[100]], ["100"]), ([[7, 7]], ["7", "7"])]),
    dict(split="train", difficulty="easy", task="returns the strings of `words` whose first character is an upper-case letter, in their original order (empty strings are left out).", ref="""
def capitalized_words(words: list[str]) -> list[str]:
    return [w for w in words if w[:1].isupper()]
""", cases=[([["Apple", "banana", "Cherry"]], ["Apple", "Cherry"]), ([[]], []), ([["", "A"]], ["A"]), ([["abc", "dEF"]], []), ([["Bob", "ALICE", "1a"]], ["Bob", "ALICE"]), ([["Xy", "xY"]], ["Xy"])]),
    dict(split="heldout", difficulty="easy", task="returns a dictionary mapping each string of `words` to its length.", ref="""
def word_length_map(words: list[str]) -> dict[str, int]:
    return {w: len(w) for w in words}
""", cases=[([["hi", "hello"]], {"hi": 2, "hello": 5}), ([[]], {}), ([["a"]], {"a": 1}), ([["x", "x"]], {"x": 1}), ([["", "abc"]], {"": 0, "abc": 3})]),
    dict(split="train", difficulty="easy", task="returns a copy of the dictionary `d` without the key `key` (an unchanged copy if `key` is not in `d`); `d` itself is not modified.", ref="""
def without_key(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}
""", cases=[([{"a": 1, "b": 2}, "a"], {"b": 2}), ([{"a": 1}, "z"], {"a": 1}), ([{}, "a"], {}), ([{"x": 0, "y": 0, "z": 0}, "y"], {"x": 0, "z": 0}), ([{"k": "v"}, "k"], {})]),
    dict(split="heldout", difficulty="easy", task="returns the values of the dictionary `d` sorted in ascending order, as a list.", ref="""
def sorted_values(d: dict[str, int]) -> list[int]:
    return sorted(d.values())
""", cases=[([{"a": 3, "b": 1, "c": 2}], [1, 2, 3]), ([{}], []), ([{"x": 5}], [5]), ([{"a": 2, "b": 2, "c": -1}], [-1, 2, 2]), ([{"z": 0, "y": 10}], [0, 10])]),
    dict(split="heldout", difficulty="easy", task="returns True if every item of the list `required` occurs in the list `items` (True when `required` is empty) and False otherwise.", ref="""
def contains_all(items: list, required: list) -> bool:
    return all(x in items for x in required)
""", cases=[([[1, 2, 3], [1, 3]], True), ([[1, 2], [4]], False), ([[], []], True), ([[], [1]], False), ([["a", "b"], ["b", "b"]], True), ([[5, 6], [5, 7]], False)]),
    dict(split="train", difficulty="easy", task="receives `person`, a dictionary with the keys \"name\" and \"age\", and returns the sentence \"<name> is <age> years old\".", ref="""
def describe_person(person: dict) -> str:
    return f"{person['name']} is {person['age']} years old"
""", cases=[([{"name": "Ann", "age": 30}], "Ann is 30 years old"), ([{"name": "Bo", "age": 1}], "Bo is 1 years old"), ([{"age": 7, "name": "Cy"}], "Cy is 7 years old"), ([{"name": "", "age": 0}], " is 0 years old"), ([{"name": "Dee Dee", "age": 99}], "Dee Dee is 99 years old")]),
    dict(split="heldout", difficulty="easy", task="receives `records`, a list of dictionaries that each have a \"name\" key, and returns the list of their names, in order.", ref="""
def names_of(records: list[dict]) -> list:
    return [r["name"] for r in records]
""", cases=[([[{"name": "a"}, {"name": "b"}]], ["a", "b"]), ([[]], []), ([[{"name": "x", "age": 3}]], ["x"]), ([[{"id": 1, "name": "Z"}, {"name": "Y", "id": 2}]], ["Z", "Y"]), ([[{"name": ""}]], [""])]),
    dict(split="train", difficulty="medium", task="receives `people`, a list of dictionaries with the keys \"name\" and \"age\", and returns the names of the people aged 18 or more, in their original order.", ref="""
def adults(people: list[dict]) -> list[str]:
    return [p["name"] for p in people if p["age"] >= 18]
""", cases=[([[{"name": "A", "age": 20}, {"name": "B", "age": 10}]], ["A"]), ([[]], []), ([[{"name": "C", "age": 18}]], ["C"]), ([[{"name": "D", "age": 17}]], []), ([[{"name": "E", "age": 40}, {"name": "F", "age": 65}]], ["E", "F"]), ([[{"name": "G", "age": 19}, {"name": "H", "age": 0}, {"name": "I", "age": 18}]], ["G", "I"])]),
    dict(split="train", difficulty="medium", task="returns True if exactly one of the three booleans `a`, `b` and `c` is True and False otherwise.", ref="""
def exactly_one_true(a: bool, b: bool, c: bool) -> bool:
    return sum([a, b, c]) == 1
""", cases=[([True, False, False], True), ([False, True, False], True), ([False, False, True], True), ([True, True, False], False), ([False, False, False], False), ([True, True, True], False), ([False, True, True], False)]),
    dict(split="train", difficulty="medium", task="returns True if at least two of the three booleans `a`, `b` and `c` are True and False otherwise.", ref="""
def majority(a: bool, b: bool, c: bool) -> bool:
    return (a and b) or (a and c) or (b and c)
""", cases=[([True, True, True], True), ([True, True, False], True), ([True, False, True], True), ([False, True, True], True), ([True, False, False], False), ([False, True, False], False), ([False, False, True], False), ([False, False, False], False)]),
    dict(split="heldout", difficulty="easy", task="returns True if `day`, the English name of a day of the week written with a capital first letter, is \"Saturday\" or \"Sunday\", and False otherwise.", ref="""
def is_weekend(day: str) -> bool:
    return day in ("Saturday", "Sunday")
""", cases=[(["Saturday"], True), (["Sunday"], True), (["Monday"], False), (["Friday"], False), (["Wednesday"], False), (["Tuesday"], False)]),
    dict(split="train", difficulty="medium", task="returns True if the integers `a` and `b` are both strictly positive or both strictly negative, and False otherwise (zero has no sign, so a pair with a zero gives False).", ref="""
def same_sign(a: int, b: int) -> bool:
    return (a > 0 and b > 0) or (a < 0 and b < 0)
""", cases=[([3, 5], True), ([-2, -9], True), ([3, -5], False), ([-1, 1], False), ([0, 4], False), ([4, 0], False), ([0, -2], False), ([-3, 0], False), ([0, 0], False), ([1, 1], True), ([-1, -1], True)]),
    dict(split="train", difficulty="medium", task="returns the state of water at the temperature `t` in degrees Celsius: \"ice\" below 0, \"steam\" at 100 or above, and \"water\" otherwise.", ref="""
def water_state(t: int) -> str:
    if t < 0:
        return "ice"
    if t >= 100:
        return "steam"
    return "water"
""", cases=[([-5], "ice"), ([0], "water"), ([-1], "ice"), ([50], "water"), ([99], "water"), ([100], "steam"), ([150], "steam")]),
    dict(split="train", difficulty="easy", task="returns the compass direction opposite to `direction`, which is one of \"N\", \"NE\", \"E\", \"SE\", \"S\", \"SW\", \"W\" and \"NW\" (so \"N\" gives \"S\" and \"NE\" gives \"SW\").", ref="""
def opposite_direction(direction: str) -> str:
    opposite = {"N": "S", "NE": "SW", "E": "W", "SE": "NW", "S": "N", "SW": "NE", "W": "E", "NW": "SE"}
    return opposite[direction]
""", cases=[(["N"], "S"), (["NE"], "SW"), (["E"], "W"), (["SE"], "NW"), (["S"], "N"), (["SW"], "NE"), (["W"], "E"), (["NW"], "SE")]),
    dict(split="train", difficulty="medium", task="returns the value of the playing card `card`: \"A\" is worth 1, \"J\", \"Q\" and \"K\" are worth 10, and a number card from \"2\" to \"10\" is worth its number.", ref="""
def card_value(card: str) -> int:
    if card == "A":
        return 1
    if card in ("J", "Q", "K"):
        return 10
    return int(card)
""", cases=[(["A"], 1), (["K"], 10), (["Q"], 10), (["J"], 10), (["7"], 7), (["10"], 10), (["2"], 2)]),
    dict(split="train", difficulty="medium", task="returns True if `hours` is from 0 to 23 and `minutes` is from 0 to 59, so that together they make a valid time of day, and False otherwise.", ref="""
def is_valid_time(hours: int, minutes: int) -> bool:
    return 0 <= hours <= 23 and 0 <= minutes <= 59
""", cases=[([0, 0], True), ([23, 59], True), ([24, 0], False), ([12, 60], False), ([-1, 30], False), ([5, -1], False), ([12, 30], True)]),
    dict(split="train", difficulty="easy", task="returns the amount `dollars` (a number of dollars that may have a fractional part) as a whole number of cents, rounded to the nearest cent.", ref="""
def to_cents(dollars: float) -> int:
    return round(dollars * 100)
""", cases=[([1.5], 150), ([0.0], 0), ([2.99], 299), ([10], 1000), ([0.07], 7), ([19.999], 2000)]),
    dict(split="heldout", difficulty="easy", task="returns the midpoint `[x, y]` of the segment from the point (`x1`, `y1`) to the point (`x2`, `y2`), both coordinates as floats.", ref="""
def midpoint(x1: int, y1: int, x2: int, y2: int) -> list[float]:
    return [(x1 + x2) / 2, (y1 + y2) / 2]
""", cases=[([0, 0, 4, 6], [2.0, 3.0]), ([1, 1, 2, 2], [1.5, 1.5]), ([-2, 5, 2, -5], [0.0, 0.0]), ([3, 3, 3, 3], [3.0, 3.0]), ([0, 10, 1, 0], [0.5, 5.0]), ([-4, -6, 0, 0], [-2.0, -3.0])]),
    dict(split="train", difficulty="medium", task="returns the slope of the straight line through the points (`x1`, `y1`) and (`x2`, `y2`), the change in y divided by the change in x, rounded to 2 decimal places (`x1` and `x2` are never equal).", ref="""
def slope(x1: int, y1: int, x2: int, y2: int) -> float:
    return round((y2 - y1) / (x2 - x1), 2)
""", cases=[([0, 0, 2, 4], 2.0), ([1, 1, 4, 1], 0.0), ([0, 0, 3, 1], 0.33), ([2, 5, 0, 1], 2.0), ([0, 3, 1, 0], -3.0), ([1, 2, 4, 0], -0.67)]),
    dict(split="heldout", difficulty="easy", task="returns a new list in which every string of `words` has `prefix` added at its start.", ref="""
def add_prefix(words: list[str], prefix: str) -> list[str]:
    return [prefix + w for w in words]
""", cases=[([["cat", "dog"], "my "], ["my cat", "my dog"]), ([[], "x"], []), ([["a"], ""], ["a"]), ([["", "b"], "pre"], ["pre", "preb"]), ([["do", "view"], "re"], ["redo", "review"])]),
    dict(split="train", difficulty="medium", task="returns the average number of characters in the whitespace-separated words of `s`, rounded to 2 decimal places (0.0 if `s` has no words).", ref="""
def average_word_length(s: str) -> float:
    words = s.split()
    if not words:
        return 0.0
    return round(sum(len(w) for w in words) / len(words), 2)
""", cases=[(["hi there"], 3.5), ([""], 0.0), (["a bb ccc"], 2.0), (["hello"], 5.0), (["one two three"], 3.67), (["   "], 0.0), (["I am ok"], 1.67)]),
    dict(split="heldout", difficulty="easy", task="returns the sum of the numbers in the list `a` minus the sum of the numbers in the list `b` (an empty list sums to 0).", ref="""
def difference_of_sums(a: list[int], b: list[int]) -> int:
    return sum(a) - sum(b)
""", cases=[([[1, 2, 3], [4]], 2), ([[], []], 0), ([[10], []], 10), ([[], [5, 5]], -10), ([[-1, -2], [-3]], 0), ([[7, 8], [1, 2, 3]], 9)]),
    dict(split="train", difficulty="medium", task="adds up the numbers of `nums` from the start, stopping at (and not including) the first negative number, and returns that sum (the sum of all of them if none is negative).", ref="""
def sum_until_negative(nums: list[int]) -> int:
    total = 0
    for x in nums:
        if x < 0:
            break
        total += x
    return total
""", cases=[([[1, 2, -1, 5]], 3), ([[]], 0), ([[-3, 4]], 0), ([[4, 5, 6]], 15), ([[0, 0, -1]], 0), ([[10, -2, -3, 7]], 10), ([[2, 0, 3, -8, 1]], 5)]),
    dict(split="train", difficulty="easy", task="returns a list with the word \"even\" for each even number of `nums` and \"odd\" for each odd number, in order.", ref="""
def parity_labels(nums: list[int]) -> list[str]:
    return ["even" if x % 2 == 0 else "odd" for x in nums]
""", cases=[([[1, 2, 3]], ["odd", "even", "odd"]), ([[]], []), ([[0]], ["even"]), ([[-3, -4]], ["odd", "even"]), ([[10, 11, 12]], ["even", "odd", "even"])]),
    dict(split="train", difficulty="medium", task="returns a dictionary mapping each first character of the non-empty strings of `words` to how many of the strings start with it (case-sensitive).", ref="""
def count_by_first_letter(words: list[str]) -> dict[str, int]:
    counts = {}
    for w in words:
        counts[w[0]] = counts.get(w[0], 0) + 1
    return counts
""", cases=[([["apple", "avocado", "banana"]], {"a": 2, "b": 1}), ([[]], {}), ([["x"]], {"x": 1}), ([["Ab", "ab"]], {"A": 1, "a": 1}), ([["cat", "cow", "car"]], {"c": 3}), ([["dog", "emu", "dingo", "eel", "fox"]], {"d": 2, "e": 2, "f": 1})]),
    dict(split="train", difficulty="medium", task="returns a new dictionary holding only the entries of `d` whose keys are listed in `keys`; the keys of `keys` that are not in `d` are ignored.", ref="""
def pick_keys(d: dict, keys: list[str]) -> dict:
    return {k: d[k] for k in keys if k in d}
""", cases=[([{"a": 1, "b": 2, "c": 3}, ["a", "c"]], {"a": 1, "c": 3}), ([{"a": 1}, []], {}), ([{}, ["x"]], {}), ([{"a": 1}, ["b"]], {}), ([{"x": 0, "y": 5}, ["y", "x"]], {"y": 5, "x": 0}), ([{"k": "v"}, ["k", "k"]], {"k": "v"})]),
    dict(split="heldout", difficulty="easy", task="receives `pairs`, a list of two-number lists, and returns the list of the sums of the two numbers of each pair.", ref="""
def pair_totals(pairs: list[list[int]]) -> list[int]:
    return [a + b for a, b in pairs]
""", cases=[([[[1, 2], [3, 4]]], [3, 7]), ([[]], []), ([[[0, 0]]], [0]), ([[[-1, 1], [5, -10]]], [0, -5]), ([[[100, 1], [2, 2], [7, 3]]], [101, 4, 10])]),
    dict(split="heldout", difficulty="easy", task="returns True if `money` is enough to buy `quantity` items that cost `price` each, and False otherwise.", ref="""
def can_afford(money: int, price: int, quantity: int) -> bool:
    return money >= price * quantity
""", cases=[([10, 2, 5], True), ([9, 2, 5], False), ([0, 3, 0], True), ([100, 30, 3], True), ([100, 30, 4], False), ([5, 6, 1], False)]),
    dict(split="train", difficulty="medium", task="returns how many numbers of `nums` lie between `lo` and `hi`, both included (`lo` <= `hi`).", ref="""
def count_between(nums: list[int], lo: int, hi: int) -> int:
    return sum(1 for x in nums if lo <= x <= hi)
""", cases=[([[1, 5, 10, 15], 5, 10], 2), ([[], 0, 9], 0), ([[3, 3, 3], 3, 3], 3), ([[-5, 0, 5], -1, 1], 1), ([[1, 2, 3], 4, 6], 0), ([[4, 6, 5, 7, 3], 4, 6], 3)]),
    dict(split="train", difficulty="easy", task="returns a new list in which every boolean of `flags` is flipped: True becomes False and False becomes True.", ref="""
def invert_flags(flags: list[bool]) -> list[bool]:
    return [not f for f in flags]
""", cases=[([[True, False]], [False, True]), ([[]], []), ([[True, True, True]], [False, False, False]), ([[False]], [True]), ([[False, True, False]], [True, False, True])]),
    dict(split="train", difficulty="easy", task="returns how many handshakes happen when each of `n` people shakes hands exactly once with every other person (`n` is never negative).", ref="""
def handshakes(n: int) -> int:
    return n * (n - 1) // 2
""", cases=[([2], 1), ([3], 3), ([0], 0), ([1], 0), ([4], 6), ([10], 45)]),
    dict(split="train", difficulty="easy", task="returns how many candies are left over when `candies` candies are shared equally among `kids` children, each child getting as many whole candies as possible (`kids` is at least 1).", ref="""
def candies_left(candies: int, kids: int) -> int:
    return candies % kids
""", cases=[([10, 3], 1), ([12, 4], 0), ([5, 7], 5), ([0, 2], 0), ([23, 5], 3), ([9, 1], 0)]),
    dict(split="heldout", difficulty="easy", task="returns the age of a dog in \"dog years\", counting 7 dog years for each of its `years` years.", ref="""
def dog_years(years: int) -> int:
    return years * 7
""", cases=[([1], 7), ([0], 0), ([3], 21), ([10], 70), ([15], 105)]),
    dict(split="heldout", difficulty="easy", task="returns the area of a trapezoid with parallel sides `a` and `b` and height `h`, that is (a + b) * h / 2, as a float.", ref="""
def trapezoid_area(a: int, b: int, h: int) -> float:
    return (a + b) * h / 2
""", cases=[([3, 5, 2], 8.0), ([1, 2, 3], 4.5), ([0, 4, 4], 8.0), ([6, 6, 0], 0.0), ([10, 4, 5], 35.0), ([2, 3, 1], 2.5)]),
    dict(split="train", difficulty="easy", task="returns what each person pays when a bill of `total` is split equally among `people` people (`people` is at least 1), rounded to 2 decimal places.", ref="""
def split_bill(total: float, people: int) -> float:
    return round(total / people, 2)
""", cases=[([100, 4], 25.0), ([10, 3], 3.33), ([50, 1], 50.0), ([0, 5], 0.0), ([7, 2], 3.5), ([99.99, 3], 33.33)]),
    dict(split="train", difficulty="easy", task="returns the yearly pay of someone who earns `rate` per hour and works 40 hours a week for 52 weeks a year.", ref="""
def yearly_salary(rate: int) -> int:
    return rate * 40 * 52
""", cases=[([10], 20800), ([0], 0), ([1], 2080), ([25], 52000), ([15], 31200)]),
    dict(split="heldout", difficulty="easy", task="returns the numbers from 1 to `n` written out and separated by single spaces (\"\" when `n` is 0).", ref="""
def count_up_string(n: int) -> str:
    return " ".join(str(i) for i in range(1, n + 1))
""", cases=[([5], "1 2 3 4 5"), ([0], ""), ([1], "1"), ([3], "1 2 3"), ([12], "1 2 3 4 5 6 7 8 9 10 11 12")]),
    dict(split="train", difficulty="easy", task="returns the line of Python code that assigns the integer `value` to the variable `name`, written as \"<name> = <value>\".", ref="""
def assignment_line(name: str, value: int) -> str:
    return f"{name} = {value}"
""", cases=[(["x", 5], "x = 5"), (["count", 0], "count = 0"), (["total_sum", -3], "total_sum = -3"), (["a", 100], "a = 100"), (["y2", 7], "y2 = 7")]),
    dict(split="train", difficulty="easy", task="returns `s` followed by a space and, in parentheses, the number of characters of `s`.", ref="""
def label_with_length(s: str) -> str:
    return f"{s} ({len(s)})"
""", cases=[(["cat"], "cat (3)"), ([""], " (0)"), (["hello world"], "hello world (11)"), (["a"], "a (1)"), (["1234567890"], "1234567890 (10)")]),
    dict(split="train", difficulty="medium", task="returns how many whitespace-separated words of `s` have exactly `n` characters.", ref="""
def count_words_of_length(s: str, n: int) -> int:
    return sum(1 for w in s.split() if len(w) == n)
""", cases=[(["a bb cc ddd", 2], 2), (["", 1], 0), (["hello", 5], 1), (["hello", 4], 0), (["I am a cat", 1], 2), (["one two six ten", 3], 4)]),
    dict(split="train", difficulty="medium", task="returns True if every whitespace-separated word of `s` starts with an upper-case letter, and False otherwise (True when `s` has no words).", ref="""
def is_title_case(s: str) -> bool:
    return all(w[0].isupper() for w in s.split())
""", cases=[(["Hello World"], True), (["Hello world"], False), ([""], True), (["A B C"], True), (["hello"], False), (["New York City"], True), (["2 Cats"], False)]),
    dict(split="train", difficulty="easy", task="returns the first `n` whitespace-separated words of `s` joined by single spaces (all the words if `s` has fewer than `n`).", ref="""
def first_n_words(s: str, n: int) -> str:
    return " ".join(s.split()[:n])
""", cases=[(["the quick brown fox", 2], "the quick"), (["", 3], ""), (["hello", 0], ""), (["a b", 5], "a b"), (["  one   two three ", 2], "one two"), (["x y z", 3], "x y z")]),
    dict(split="train", difficulty="medium", task="returns True if `pin` is a valid PIN: exactly 4 or exactly 6 characters long, every one of them a decimal digit 0-9, and False otherwise.", ref="""
def is_valid_pin(pin: str) -> bool:
    return len(pin) in (4, 6) and pin.isdigit()
""", cases=[(["1234"], True), (["123456"], True), (["12345"], False), (["12a4"], False), ([""], False), (["0000"], True), (["123"], False), (["1234567"], False), (["12 34"], False)]),
    dict(split="train", difficulty="medium", task="returns the lower-case letters from `a` to `b`, both included, in alphabetical order as one string (`a` and `b` are lower-case letters and `a` does not come after `b`).", ref="""
def letters_between(a: str, b: str) -> str:
    return "".join(chr(c) for c in range(ord(a), ord(b) + 1))
""", cases=[(["c", "f"], "cdef"), (["a", "a"], "a"), (["a", "e"], "abcde"), (["x", "z"], "xyz"), (["m", "n"], "mn"), (["a", "z"], "abcdefghijklmnopqrstuvwxyz")]),
    dict(split="heldout", difficulty="easy", task="converts the length `inches` from inches to centimetres (1 inch is 2.54 centimetres) and returns it rounded to 2 decimal places.", ref="""
def inches_to_cm(inches: int) -> float:
    return round(inches * 2.54, 2)
""", cases=[([1], 2.54), ([0], 0.0), ([10], 25.4), ([12], 30.48), ([3], 7.62), ([100], 254.0)], survivors=["line 2: value -> 3"]),
    dict(split="train", difficulty="medium", task="returns the kind of an angle of `degrees` degrees (from 1 to 180): \"acute\" below 90, \"right\" at exactly 90, \"obtuse\" above 90 and below 180, and \"straight\" at 180.", ref="""
def angle_type(degrees: int) -> str:
    if degrees < 90:
        return "acute"
    if degrees == 90:
        return "right"
    if degrees < 180:
        return "obtuse"
    return "straight"
""", cases=[([45], "acute"), ([89], "acute"), ([90], "right"), ([91], "obtuse"), ([179], "obtuse"), ([180], "straight"), ([1], "acute"), ([120], "obtuse")]),
    dict(split="train", difficulty="easy", task="returns the third angle, in degrees, of a triangle whose other two angles are `a` and `b` degrees (the three angles of a triangle add up to 180 degrees).", ref="""
def third_angle(a: int, b: int) -> int:
    return 180 - a - b
""", cases=[([60, 60], 60), ([90, 45], 45), ([30, 60], 90), ([100, 40], 40), ([1, 1], 178), ([120, 30], 30)]),
    dict(split="train", difficulty="easy", task="returns the number whose decimal digits are those of the non-negative integer `a` followed by those of the non-negative integer `b`.", ref="""
def concat_numbers(a: int, b: int) -> int:
    return int(str(a) + str(b))
""", cases=[([12, 34], 1234), ([1, 0], 10), ([0, 5], 5), ([100, 200], 100200), ([7, 7], 77), ([0, 0], 0)]),
    dict(split="train", difficulty="medium", task="returns the items of the equally long lists `a` and `b` interleaved: a[0], b[0], a[1], b[1], and so on.", ref="""
def interleave(a: list, b: list) -> list:
    out = []
    for x, y in zip(a, b):
        out += [x, y]
    return out
""", cases=[([[1, 2], [3, 4]], [1, 3, 2, 4]), ([[], []], []), ([["a"], ["b"]], ["a", "b"]), ([[1, 1, 1], [0, 0, 0]], [1, 0, 1, 0, 1, 0]), ([[5, 6, 7], [8, 9, 10]], [5, 8, 6, 9, 7, 10])]),
    dict(split="train", difficulty="medium", task="returns how many times the positive integer `n` must be doubled until it is at least `limit` (0 if it already is).", ref="""
def double_until(n: int, limit: int) -> int:
    steps = 0
    while n < limit:
        n *= 2
        steps += 1
    return steps
""", cases=[([1, 8], 3), ([5, 5], 0), ([3, 10], 2), ([10, 1], 0), ([1, 1000], 10), ([7, 8], 1), ([4, 9], 2)]),
    dict(split="train", difficulty="medium", task="returns the total to pay for an order of `subtotal` dollars: an order under 50 dollars costs 5 dollars more for shipping, and an order of 50 dollars or more ships for free.", ref="""
def with_shipping(subtotal: int) -> int:
    return subtotal + 5 if subtotal < 50 else subtotal
""", cases=[([20], 25), ([50], 50), ([49], 54), ([0], 5), ([100], 100), ([51], 51)]),
    dict(split="train", difficulty="medium", task="returns the fine for driving at `speed` where the speed limit is `limit`: 10 for every unit of speed above the limit, and 0 when `speed` is not above `limit`.", ref="""
def speeding_fine(speed: int, limit: int) -> int:
    return max(0, speed - limit) * 10
""", cases=[([50, 50], 0), ([55, 50], 50), ([40, 50], 0), ([51, 50], 10), ([100, 60], 400), ([31, 30], 10)]),
    dict(split="train", difficulty="easy", task="returns how many lives a player who starts with `lives` lives has left after losing one life for each of `hits` hits; the number of lives never goes below 0.", ref="""
def lives_left(lives: int, hits: int) -> int:
    return max(0, lives - hits)
""", cases=[([3, 1], 2), ([3, 3], 0), ([3, 5], 0), ([5, 0], 5), ([0, 0], 0), ([10, 4], 6), ([1, 2], 0)]),
    dict(split="train", difficulty="easy", task="returns the level of a game character with `xp` experience points (never negative): level 1 from 0 to 99 points, level 2 from 100 to 199, and so on, one level for every 100 points.", ref="""
def level_from_xp(xp: int) -> int:
    return xp // 100 + 1
""", cases=[([0], 1), ([99], 1), ([100], 2), ([250], 3), ([199], 2), ([1000], 11)]),
    dict(split="train", difficulty="medium", task="returns the batting average of a player with `hits` hits in `at_bats` times at bat: `hits` divided by `at_bats`, rounded to 3 decimal places, or 0.0 when `at_bats` is 0.", ref="""
def batting_average(hits: int, at_bats: int) -> float:
    if at_bats == 0:
        return 0.0
    return round(hits / at_bats, 3)
""", cases=[([1, 3], 0.333), ([0, 0], 0.0), ([2, 4], 0.5), ([0, 5], 0.0), ([7, 7], 1.0), ([5, 12], 0.417), ([3, 0], 0.0)]),
    dict(split="train", difficulty="easy", task="returns a username made of the first letter of `first` followed by the whole of `last`, all in lower case (both names are non-empty).", ref="""
def make_username(first: str, last: str) -> str:
    return (first[0] + last).lower()
""", cases=[(["John", "Smith"], "jsmith"), (["ann", "lee"], "alee"), (["Bob", "O"], "bo"), (["X", "Y"], "xy"), (["Mary", "McDonald"], "mmcdonald"), (["zoe", "ZED"], "zzed")]),
    dict(split="train", difficulty="easy", task="returns `s`, then a newline character \"\\n\", then as many \"-\" characters as `s` has characters.", ref="""
def underline(s: str) -> str:
    return s + "\\n" + "-" * len(s)
""", cases=[(["Title"], "Title\n-----"), ([""], "\n"), (["a b"], "a b\n---"), (["X"], "X\n-"), (["Hello!"], "Hello!\n------")]),
    dict(split="heldout", difficulty="easy", task="returns the name of the type of `x` as a string: \"int\", \"float\", \"str\", \"bool\", \"list\", \"dict\" or \"NoneType\".", ref="""
def type_name(x) -> str:
    return type(x).__name__
""", cases=[([5], "int"), ([2.5], "float"), (["hi"], "str"), ([True], "bool"), ([[1]], "list"), ([{"a": 1}], "dict"), ([None], "NoneType")]),
    dict(split="train", difficulty="easy", task="returns True if the string `s` is \"yes\", \"true\" or \"1\", ignoring upper and lower case and any whitespace around it, and False for anything else.", ref="""
def to_bool(s: str) -> bool:
    return s.strip().lower() in ("yes", "true", "1")
""", cases=[(["yes"], True), (["TRUE"], True), ([" 1 "], True), (["no"], False), ([""], False), (["Yes "], True), (["yess"], False), (["0"], False)]),
    dict(split="train", difficulty="easy", task="returns `x`, or `default` when `x` is None (other values, such as 0 or \"\", are returned as they are).", ref="""
def or_default(x, default):
    return default if x is None else x
""", cases=[([None, 5], 5), ([3, 5], 3), ([0, 5], 0), (["", "d"], ""), ([None, "d"], "d"), ([False, True], False), ([[], [1]], [])]),
    dict(split="heldout", difficulty="easy", task="returns `a // b`, the result of dividing `a` by `b` rounded down to a whole number, or 0 when `b` is 0.", ref="""
def safe_divide(a: int, b: int) -> int:
    return 0 if b == 0 else a // b
""", cases=[([10, 2], 5), ([7, 0], 0), ([7, 2], 3), ([0, 3], 0), ([-7, 2], -4), ([9, 9], 1), ([5, 10], 0)]),
    dict(split="train", difficulty="easy", task="returns the first `n` lower-case letters of the English alphabet as one string (`n` is from 0 to 26).", ref="""
def alphabet_prefix(n: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[:n]
""", cases=[([3], "abc"), ([0], ""), ([1], "a"), ([26], "abcdefghijklmnopqrstuvwxyz"), ([5], "abcde"), ([10], "abcdefghij")]),
    dict(split="train", difficulty="medium", task="returns a list in which each integer i from 1 to `n` appears i times, in increasing order ([] when `n` is 0).", ref="""
def repeat_numbers(n: int) -> list[int]:
    return [i for i in range(1, n + 1) for _ in range(i)]
""", cases=[([3], [1, 2, 2, 3, 3, 3]), ([0], []), ([1], [1]), ([2], [1, 2, 2]), ([4], [1, 2, 2, 3, 3, 3, 4, 4, 4, 4])], survivors=["line 2: value -> 0"]),
    dict(split="train", difficulty="easy", task="returns True if both of the strings `a` and `b` occur in the string `s` and False otherwise.", ref="""
def contains_both(s: str, a: str, b: str) -> bool:
    return a in s and b in s
""", cases=[(["hello world", "hello", "world"], True), (["hello", "he", "x"], False), (["abc", "x", "a"], False), (["", "", ""], True), (["banana", "nan", "ana"], True), (["cat", "c", "t"], True), (["cat", "dog", "cow"], False)]),
    dict(split="train", difficulty="easy", task="returns True if `s` starts with at least one of the strings of the list `prefixes` and False otherwise (False when `prefixes` is empty).", ref="""
def has_prefix_any(s: str, prefixes: list[str]) -> bool:
    return any(s.startswith(p) for p in prefixes)
""", cases=[(["hello", ["he", "x"]], True), (["hello", ["x", "y"]], False), (["hello", []], False), (["", [""]], True), (["apple", ["b", "ap"]], True), (["Apple", ["a"]], False)]),
    dict(split="train", difficulty="easy", task="returns the larger of the sum `a` + `b` and the product `a` * `b`.", ref="""
def larger_of_sum_or_product(a: int, b: int) -> int:
    return max(a + b, a * b)
""", cases=[([2, 3], 6), ([1, 5], 6), ([0, 4], 4), ([-2, -3], 6), ([-2, 3], 1), ([3, 3], 9), ([1, 1], 2)]),
    dict(split="heldout", difficulty="easy", task="returns the number `x` written as a string with exactly two digits after the decimal point, rounded (so 3.14159 gives \"3.14\" and 2 gives \"2.00\").", ref="""
def format_two_decimals(x: float) -> str:
    return f"{x:.2f}"
""", cases=[([3.14159], "3.14"), ([2], "2.00"), ([0.5], "0.50"), ([10.0], "10.00"), ([2.678], "2.68"), ([-4.2], "-4.20"), ([0], "0.00")]),
    dict(split="heldout", difficulty="medium", task="returns a dictionary whose keys \"min\", \"max\" and \"sum\" hold the smallest number, the largest number and the sum of the numbers of the non-empty list `nums`.", ref="""
def summary_stats(nums: list[int]) -> dict[str, int]:
    return {"min": min(nums), "max": max(nums), "sum": sum(nums)}
""", cases=[([[1, 2, 3]], {"min": 1, "max": 3, "sum": 6}), ([[5]], {"min": 5, "max": 5, "sum": 5}), ([[-1, -5, 2]], {"min": -5, "max": 2, "sum": -4}), ([[0, 0]], {"min": 0, "max": 0, "sum": 0}), ([[10, -10]], {"min": -10, "max": 10, "sum": 0})]),
    dict(split="heldout", difficulty="easy", task="returns a dictionary with the key \"name\" holding `name` and the key \"age\" holding `age`.", ref="""
def make_person(name: str, age: int) -> dict:
    return {"name": name, "age": age}
""", cases=[(["Ann", 30], {"name": "Ann", "age": 30}), (["", 0], {"name": "", "age": 0}), (["Bob", 7], {"name": "Bob", "age": 7}), (["Li Na", 45], {"name": "Li Na", "age": 45}), (["x", 100], {"name": "x", "age": 100})]),
    dict(split="train", difficulty="medium", task="returns the result of a football match for the home team: \"win\" if `home_goals` is larger than `away_goals`, \"loss\" if it is smaller and \"draw\" if they are equal.", ref="""
def match_result(home_goals: int, away_goals: int) -> str:
    if home_goals > away_goals:
        return "win"
    if home_goals < away_goals:
        return "loss"
    return "draw"
""", cases=[([2, 1], "win"), ([0, 3], "loss"), ([1, 1], "draw"), ([0, 0], "draw"), ([5, 4], "win"), ([3, 4], "loss")]),
    dict(split="train", difficulty="easy", task="returns a new dictionary with the same entries as `d` but with every key converted to upper case (the upper-cased keys are all different).", ref="""
def upper_keys(d: dict) -> dict:
    return {k.upper(): v for k, v in d.items()}
""", cases=[([{"a": 1, "b": 2}], {"A": 1, "B": 2}), ([{}], {}), ([{"Hello": "x"}], {"HELLO": "x"}), ([{"x1": 0}], {"X1": 0}), ([{"ab": [1], "CD": 2}], {"AB": [1], "CD": 2})]),
    dict(split="train", difficulty="medium", task="returns True if `s` starts with an upper-case letter and ends with a full stop \".\", and False otherwise.", ref="""
def looks_like_sentence(s: str) -> bool:
    return s[:1].isupper() and s.endswith(".")
""", cases=[(["Hello there."], True), (["hello there."], False), (["Hello there"], False), ([""], False), (["A."], True), (["."], False), (["OK!"], False), (["Yes. No"], False)]),
    dict(split="train", difficulty="easy", task="returns True if the first number of the non-empty list `nums` is at least as large as every other number in it, and False otherwise.", ref="""
def first_is_largest(nums: list[int]) -> bool:
    return nums[0] == max(nums)
""", cases=[([[5, 3, 1]], True), ([[1, 5]], False), ([[7]], True), ([[4, 4, 2]], True), ([[2, 3, 2]], False), ([[-1, -2, -3]], True), ([[0, 0, 1]], False)]),
    dict(split="train", difficulty="easy", task="returns the circumference of a circle of radius `r` (2 times pi times `r`, using `math.pi`), rounded to 2 decimal places.", ref="""
def circle_circumference(r: int) -> float:
    import math
    return round(2 * math.pi * r, 2)
""", cases=[([1], 6.28), ([0], 0.0), ([2], 12.57), ([10], 62.83), ([5], 31.42), ([3], 18.85)]),
    dict(split="train", difficulty="easy", task="returns the kinetic energy of a body of mass `mass` moving at speed `speed`, which is half the mass times the square of the speed, as a float.", ref="""
def kinetic_energy(mass: int, speed: int) -> float:
    return mass * speed * speed / 2
""", cases=[([2, 3], 9.0), ([1, 1], 0.5), ([0, 5], 0.0), ([4, 0], 0.0), ([10, 2], 20.0), ([3, 3], 13.5)]),
    dict(split="train", difficulty="easy", task="returns the electric current, in amperes, through a resistance of `resistance` ohms at a voltage of `voltage` volts (the voltage divided by the resistance), rounded to 2 decimal places.", ref="""
def ohms_law_current(voltage: int, resistance: int) -> float:
    return round(voltage / resistance, 2)
""", cases=[([12, 4], 3.0), ([5, 2], 2.5), ([10, 3], 3.33), ([0, 7], 0.0), ([9, 6], 1.5), ([1, 7], 0.14)]),
    dict(split="train", difficulty="easy", task="returns the profit from selling `quantity` items that were bought for `cost` each and are sold for `price` each (negative for a loss).", ref="""
def profit(cost: int, price: int, quantity: int) -> int:
    return (price - cost) * quantity
""", cases=[([2, 5, 10], 30), ([5, 5, 3], 0), ([10, 7, 2], -6), ([1, 2, 0], 0), ([3, 10, 1], 7), ([0, 4, 5], 20)]),
    dict(split="train", difficulty="medium", task="returns True if `s` names a square of a chess board, that is exactly two characters: a letter from \"a\" to \"h\" followed by a digit from \"1\" to \"8\", and False otherwise.", ref="""
def is_valid_chess_square(s: str) -> bool:
    return len(s) == 2 and s[0] in "abcdefgh" and s[1] in "12345678"
""", cases=[(["e4"], True), (["a1"], True), (["h8"], True), (["i1"], False), (["a9"], False), (["a0"], False), (["e"], False), (["e44"], False), (["E4"], False), (["4e"], False), ([""], False)]),
    dict(split="train", difficulty="easy", task="returns the first number of the version string `v`, whose numbers are separated by dots (so \"3.10.2\" gives 3), as an int.", ref="""
def version_major(v: str) -> int:
    return int(v.split(".")[0])
""", cases=[(["3.10.2"], 3), (["1.0"], 1), (["10.4.1"], 10), (["0.9"], 0), (["7"], 7), (["12.0.0.1"], 12)]),
    dict(split="train", difficulty="easy", task="returns the number whose decimal digits, from the most significant one, are the single digits of the non-empty list `digits` (leading zeros are dropped).", ref="""
def digits_to_number(digits: list[int]) -> int:
    n = 0
    for d in digits:
        n = n * 10 + d
    return n
""", cases=[([[1, 2, 3]], 123), ([[0]], 0), ([[5]], 5), ([[1, 0, 0]], 100), ([[0, 4, 2]], 42), ([[9, 9]], 99), ([[2, 0, 2, 4]], 2024)]),
    dict(split="train", difficulty="medium", task="returns the colour made by mixing two different primary colours `a` and `b`, each \"red\", \"blue\" or \"yellow\" (in either order): red and blue give \"purple\", red and yellow give \"orange\", and blue and yellow give \"green\".", ref="""
def color_mix(a: str, b: str) -> str:
    pair = {a, b}
    if pair == {"red", "blue"}:
        return "purple"
    if pair == {"red", "yellow"}:
        return "orange"
    return "green"
""", cases=[(["red", "blue"], "purple"), (["blue", "red"], "purple"), (["red", "yellow"], "orange"), (["yellow", "red"], "orange"), (["blue", "yellow"], "green"), (["yellow", "blue"], "green")]),
    dict(split="heldout", difficulty="easy", task="returns the grade points of the letter grade `letter`: 4 for \"A\", 3 for \"B\", 2 for \"C\", 1 for \"D\" and 0 for \"F\".", ref="""
def grade_points(letter: str) -> int:
    return {"A": 4, "B": 3, "C": 2, "D": 1, "F": 0}[letter]
""", cases=[(["A"], 4), (["B"], 3), (["C"], 2), (["D"], 1), (["F"], 0)]),
    dict(split="train", difficulty="easy", task="returns the name of the US coin worth `cents` cents: \"penny\" for 1, \"nickel\" for 5, \"dime\" for 10 and \"quarter\" for 25, or \"unknown\" for any other value.", ref="""
def coin_name(cents: int) -> str:
    return {1: "penny", 5: "nickel", 10: "dime", 25: "quarter"}.get(cents, "unknown")
""", cases=[([1], "penny"), ([5], "nickel"), ([10], "dime"), ([25], "quarter"), ([2], "unknown"), ([50], "unknown"), ([0], "unknown"), ([24], "unknown"), ([6], "unknown"), ([11], "unknown"), ([26], "unknown"), ([4], "unknown"), ([9], "unknown")]),
    dict(split="heldout", difficulty="easy", task="returns the reason phrase of the HTTP status code `code`: \"OK\" for 200, \"Not Found\" for 404, \"Internal Server Error\" for 500, and \"Unknown\" for any other code.", ref="""
def http_status_text(code: int) -> str:
    return {200: "OK", 404: "Not Found", 500: "Internal Server Error"}.get(code, "Unknown")
""", cases=[([200], "OK"), ([404], "Not Found"), ([500], "Internal Server Error"), ([201], "Unknown"), ([403], "Unknown"), ([0], "Unknown"), ([499], "Unknown"), ([199], "Unknown"), ([405], "Unknown"), ([501], "Unknown")]),
    dict(split="train", difficulty="medium", task="starts with `money` to spend, buys the items whose prices are listed in `prices` one after another, and stops at the first item that costs more than the money left; it returns how many items were bought.", ref="""
def spend_until_broke(money: int, prices: list[int]) -> int:
    count = 0
    for p in prices:
        if p > money:
            break
        money -= p
        count += 1
    return count
""", cases=[([10, [3, 4, 5]], 2), ([0, [1]], 0), ([10, []], 0), ([10, [5, 5]], 2), ([10, [11, 1]], 0), ([7, [2, 2, 2, 2]], 3), ([5, [0, 5, 1]], 2)]),
    dict(split="train", difficulty="medium", task="returns the sum of the non-empty list `nums` written as an equation: the numbers joined by \"+\", then \"=\" and their sum (so [1, 2, 3] gives \"1+2+3=6\").", ref="""
def sum_expression(nums: list[int]) -> str:
    return "+".join(str(x) for x in nums) + "=" + str(sum(nums))
""", cases=[([[1, 2, 3]], "1+2+3=6"), ([[5]], "5=5"), ([[0, 0]], "0+0=0"), ([[10, 20]], "10+20=30"), ([[-1, 4]], "-1+4=3"), ([[7, 7, 7, 7]], "7+7+7+7=28")]),
    dict(split="train", difficulty="easy", task="returns the multiplication of `a` by `b` written out as \"<a> x <b> = <product>\".", ref="""
def multiplication_sentence(a: int, b: int) -> str:
    return f"{a} x {b} = {a * b}"
""", cases=[([3, 4], "3 x 4 = 12"), ([0, 5], "0 x 5 = 0"), ([7, 7], "7 x 7 = 49"), ([1, 9], "1 x 9 = 9"), ([-2, 3], "-2 x 3 = -6"), ([12, 10], "12 x 10 = 120")]),
    dict(split="train", difficulty="easy", task="returns the integer `n` as a string with an explicit sign: \"+\" before a positive number, \"-\" before a negative one, and just \"0\" for zero.", ref="""
def number_with_sign(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)
""", cases=[([5], "+5"), ([-3], "-3"), ([0], "0"), ([1], "+1"), ([-1], "-1"), ([120], "+120")]),
    dict(split="train", difficulty="easy", task="returns the first vowel (a, e, i, o or u, in upper or lower case) of `s`, as it is written there, or \"\" if `s` has no vowel.", ref="""
def first_vowel(s: str) -> str:
    for ch in s:
        if ch.lower() in "aeiou":
            return ch
    return ""
""", cases=[(["hello"], "e"), (["rhythm"], ""), ([""], ""), (["Apple"], "A"), (["xyzzyU"], "U"), (["strong"], "o")]),
    dict(split="train", difficulty="medium", task="converts the fraction `s`, written as \"numerator/denominator\" with integers (the denominator is not 0), to its value as a float rounded to 2 decimal places.", ref="""
def fraction_to_float(s: str) -> float:
    num, den = s.split("/")
    return round(int(num) / int(den), 2)
""", cases=[(["3/4"], 0.75), (["1/3"], 0.33), (["10/5"], 2.0), (["0/7"], 0.0), (["-1/2"], -0.5), (["22/7"], 3.14), (["2/3"], 0.67)]),
    dict(split="train", difficulty="easy", task="returns the final mark of a course where the homework counts for 40 percent and the exam for 60 percent, 0.4 * `homework` + 0.6 * `exam`, rounded to 1 decimal place.", ref="""
def weighted_score(homework: int, exam: int) -> float:
    return round(0.4 * homework + 0.6 * exam, 1)
""", cases=[([100, 50], 70.0), ([80, 90], 86.0), ([0, 0], 0.0), ([75, 62], 67.2), ([100, 100], 100.0), ([55, 71], 64.6)], survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns the sum of the first `n` numbers of `nums` (of all of them if `nums` has fewer than `n` numbers; 0 when `n` is 0).", ref="""
def sum_first_n(nums: list[int], n: int) -> int:
    return sum(nums[:n])
""", cases=[([[1, 2, 3, 4], 2], 3), ([[1, 2], 5], 3), ([[5, 5], 0], 0), ([[], 3], 0), ([[10, -2, 7], 3], 15), ([[4, 1, 1], 1], 4)]),
    dict(split="heldout", difficulty="easy", task="returns the inverse of the colour with red, green and blue components `r`, `g` and `b` (each from 0 to 255), as the list `[255 - r, 255 - g, 255 - b]`.", ref="""
def invert_color(r: int, g: int, b: int) -> list[int]:
    return [255 - r, 255 - g, 255 - b]
""", cases=[([0, 0, 0], [255, 255, 255]), ([255, 255, 255], [0, 0, 0]), ([10, 20, 30], [245, 235, 225]), ([128, 0, 255], [127, 255, 0]), ([1, 2, 3], [254, 253, 252])]),
    dict(split="train", difficulty="easy", task="returns the balance left after buying an item that costs `price` with a balance of `balance`; if the balance is smaller than the price, nothing is bought and `balance` is returned unchanged.", ref="""
def buy_if_affordable(balance: int, price: int) -> int:
    return balance - price if balance >= price else balance
""", cases=[([10, 3], 7), ([3, 10], 3), ([5, 5], 0), ([0, 1], 0), ([100, 99], 1), ([4, 5], 4)]),
    dict(split="train", difficulty="easy", task="returns the length of a time of `hours` hours and `minutes` minutes in hours, as a float rounded to 2 decimal places (so 1 hour and 30 minutes give 1.5).", ref="""
def hours_minutes_to_decimal(hours: int, minutes: int) -> float:
    return round(hours + minutes / 60, 2)
""", cases=[([1, 30], 1.5), ([2, 0], 2.0), ([0, 15], 0.25), ([0, 20], 0.33), ([3, 45], 3.75), ([0, 1], 0.02)]),
    dict(split="train", difficulty="easy", task="returns a list of `rows` strings, each made of `cols` copies of the character `ch`, like the rows of a filled rectangle.", ref="""
def filled_rows(rows: int, cols: int, ch: str) -> list[str]:
    return [ch * cols for _ in range(rows)]
""", cases=[([2, 3, "#"], ["###", "###"]), ([0, 5, "*"], []), ([1, 1, "x"], ["x"]), ([3, 0, "#"], ["", "", ""]), ([1, 4, "."], ["...."])]),
    dict(split="train", difficulty="easy", task="converts a length of `inches` inches (never negative) into whole feet and the inches left over, 12 inches making a foot, and returns them as `[feet, inches]`.", ref="""
def feet_and_inches(inches: int) -> list[int]:
    return [inches // 12, inches % 12]
""", cases=[([30], [2, 6]), ([12], [1, 0]), ([0], [0, 0]), ([11], [0, 11]), ([100], [8, 4]), ([25], [2, 1])]),
    dict(split="train", difficulty="easy", task="returns a list of `n` numbers that alternate between 1 and -1, starting with 1 ([] when `n` is 0).", ref="""
def alternate_signs(n: int) -> list[int]:
    return [1 if i % 2 == 0 else -1 for i in range(n)]
""", cases=[([4], [1, -1, 1, -1]), ([0], []), ([1], [1]), ([5], [1, -1, 1, -1, 1]), ([2], [1, -1])]),
    dict(split="train", difficulty="medium", task="returns a dictionary mapping each of the vowels \"a\", \"e\", \"i\", \"o\" and \"u\" to how many times it occurs in `s`, ignoring case (a vowel that does not occur maps to 0).", ref="""
def vowel_count_dict(s: str) -> dict[str, int]:
    return {v: s.lower().count(v) for v in "aeiou"}
""", cases=[(["hello"], {"a": 0, "e": 1, "i": 0, "o": 1, "u": 0}), ([""], {"a": 0, "e": 0, "i": 0, "o": 0, "u": 0}), (["AEIOU aeiou"], {"a": 2, "e": 2, "i": 2, "o": 2, "u": 2}), (["banana"], {"a": 3, "e": 0, "i": 0, "o": 0, "u": 0}), (["Queue"], {"a": 0, "e": 2, "i": 0, "o": 0, "u": 2})]),
    dict(split="heldout", difficulty="easy", task="returns a list of labels \"<name> (<age>)\" built from the names of `names` and the ages at the same positions of `ages` (the two lists are equally long).", ref="""
def name_age_labels(names: list[str], ages: list[int]) -> list[str]:
    return [f"{n} ({a})" for n, a in zip(names, ages)]
""", cases=[([["Ann", "Bob"], [30, 5]], ["Ann (30)", "Bob (5)"]), ([[], []], []), ([["X"], [0]], ["X (0)"]), ([["a", "b", "c"], [1, 2, 3]], ["a (1)", "b (2)", "c (3)"]), ([["Zoe Lee"], [42]], ["Zoe Lee (42)"])]),
    dict(split="heldout", difficulty="easy", task="returns `x` itself if it is a list, and otherwise a list holding `x` as its only item.", ref="""
def as_list(x) -> list:
    return x if isinstance(x, list) else [x]
""", cases=[([[1, 2]], [1, 2]), ([5], [5]), (["ab"], ["ab"]), ([[]], []), ([None], [None]), ([{"a": 1}], [{"a": 1}])]),
    dict(split="train", difficulty="easy", task="returns the name of a polygon with `sides` sides: \"triangle\" for 3, \"quadrilateral\" for 4, \"pentagon\" for 5, \"hexagon\" for 6, and \"polygon\" for any other number.", ref="""
def polygon_name(sides: int) -> str:
    return {3: "triangle", 4: "quadrilateral", 5: "pentagon", 6: "hexagon"}.get(sides, "polygon")
""", cases=[([3], "triangle"), ([4], "quadrilateral"), ([5], "pentagon"), ([6], "hexagon"), ([7], "polygon"), ([2], "polygon"), ([8], "polygon"), ([10], "polygon")]),
    dict(split="train", difficulty="easy", task="returns the price per kilogram of a pack that costs `price` and weighs `grams` grams (1000 grams make a kilogram), rounded to 2 decimal places.", ref="""
def price_per_kilo(price: float, grams: int) -> float:
    return round(price / grams * 1000, 2)
""", cases=[([2.5, 500], 5.0), ([3, 250], 12.0), ([1, 1000], 1.0), ([4.99, 750], 6.65), ([0, 100], 0.0), ([7, 300], 23.33)]),
    dict(split="train", difficulty="easy", task="returns a string of `n` characters that alternate between \"#\" and \".\", starting with \"#\" (\"\" when `n` is 0).", ref="""
def checker_row(n: int) -> str:
    return "".join("#" if i % 2 == 0 else "." for i in range(n))
""", cases=[([4], "#.#."), ([0], ""), ([1], "#"), ([5], "#.#.#"), ([2], "#."), ([7], "#.#.#.#")]),
    dict(split="train", difficulty="medium", task="returns the list of the non-empty prefixes of `s` (the strings that `s` starts with), from the shortest to the longest, ending with `s` itself ([] for an empty string).", ref="""
def prefixes(s: str) -> list[str]:
    return [s[:i] for i in range(1, len(s) + 1)]
""", cases=[(["abc"], ["a", "ab", "abc"]), ([""], []), (["x"], ["x"]), (["hello"], ["h", "he", "hel", "hell", "hello"]), (["ab"], ["a", "ab"])]),
    dict(split="train", difficulty="easy", task="returns the integer `n` itself if it is even, and `n` + 1 if it is odd.", ref="""
def round_up_to_even(n: int) -> int:
    return n if n % 2 == 0 else n + 1
""", cases=[([4], 4), ([7], 8), ([0], 0), ([-3], -2), ([-4], -4), ([1], 2), ([99], 100)]),
    dict(split="train", difficulty="medium", task="receives three integers `a`, `b` and `c` of which exactly two are equal, and returns the one that differs from the other two.", ref="""
def odd_one_out(a: int, b: int, c: int) -> int:
    if a == b:
        return c
    if a == c:
        return b
    return a
""", cases=[([3, 3, 5], 5), ([3, 5, 3], 5), ([5, 3, 3], 5), ([1, 2, 2], 1), ([0, 0, -1], -1), ([7, 9, 7], 9), ([4, 8, 8], 4)]),
    dict(split="train", difficulty="medium", task="returns True if the positive integer `n` is divisible by 7 or contains the digit 7, and False otherwise.", ref="""
def is_boom(n: int) -> bool:
    return n % 7 == 0 or "7" in str(n)
""", cases=[([7], True), ([14], True), ([17], True), ([70], True), ([8], False), ([1], False), ([27], True), ([22], False), ([21], True), ([6], False), ([13], False)]),
    dict(split="heldout", difficulty="easy", task="returns True if the weights in `weights` add up to at most `limit`, and False otherwise.", ref="""
def fits_in_elevator(weights: list[int], limit: int) -> bool:
    return sum(weights) <= limit
""", cases=[([[70, 80], 200], True), ([[100, 101], 200], False), ([[], 0], True), ([[50, 50], 100], True), ([[300], 250], False), ([[1, 1, 1], 2], False)]),
    dict(split="train", difficulty="easy", task="returns True if the average of the non-empty list `scores` is at least `pass_mark`, and False otherwise.", ref="""
def passes_on_average(scores: list[int], pass_mark: int) -> bool:
    return sum(scores) / len(scores) >= pass_mark
""", cases=[([[50, 70], 60], True), ([[50, 69], 60], False), ([[100], 100], True), ([[0, 0, 1], 1], False), ([[40, 80, 60], 60], True), ([[59], 60], False)]),
    dict(split="heldout", difficulty="easy", task="returns `n` with its sign flipped: a positive number becomes negative, a negative number becomes positive, and 0 stays 0.", ref="""
def negate(n: int) -> int:
    return -n
""", cases=[([5], -5), ([-3], 3), ([0], 0), ([1], -1), ([-100], 100)]),
    dict(split="train", difficulty="easy", task="returns the area of a square whose perimeter is `perimeter` (a non-negative multiple of 4).", ref="""
def square_area_from_perimeter(perimeter: int) -> int:
    side = perimeter // 4
    return side * side
""", cases=[([4], 1), ([8], 4), ([0], 0), ([20], 25), ([40], 100), ([12], 9)]),
    dict(split="train", difficulty="easy", task="returns a new list made of the numbers of `nums` followed by their sum.", ref="""
def append_sum(nums: list[int]) -> list[int]:
    return nums + [sum(nums)]
""", cases=[([[1, 2, 3]], [1, 2, 3, 6]), ([[]], [0]), ([[5]], [5, 5]), ([[-1, 1]], [-1, 1, 0]), ([[10, 20]], [10, 20, 30])]),
    dict(split="heldout", difficulty="easy", task="returns True if the dictionary `d` has the key `key` and the value stored under it equals `value`, and False otherwise.", ref="""
def has_entry(d: dict, key: str, value) -> bool:
    return key in d and d[key] == value
""", cases=[([{"a": 1}, "a", 1], True), ([{"a": 1}, "a", 2], False), ([{"a": 1}, "b", 1], False), ([{}, "a", None], False), ([{"x": None}, "x", None], True), ([{"k": 0, "j": 0}, "j", 0], True)]),
    dict(split="train", difficulty="easy", task="returns how many hours there are in `weeks` weeks.", ref="""
def weeks_to_hours(weeks: int) -> int:
    return weeks * 7 * 24
""", cases=[([1], 168), ([0], 0), ([2], 336), ([10], 1680), ([52], 8736)]),
    dict(split="train", difficulty="medium", task="returns how many minutes after midnight the time `t` is, where `t` is written as the hour and the minutes separated by a colon, like \"2:30\" or \"14:05\".", ref="""
def clock_to_minutes(t: str) -> int:
    h, m = t.split(":")
    return int(h) * 60 + int(m)
""", cases=[(["2:30"], 150), (["0:00"], 0), (["14:05"], 845), (["23:59"], 1439), (["1:01"], 61), (["10:10"], 610)]),
    dict(split="train", difficulty="easy", task="returns the emoticon for `mood`: \":)\" for \"happy\", \":(\" for \"sad\", \":O\" for \"surprised\", and \":|\" for any other mood.", ref="""
def emoticon(mood: str) -> str:
    return {"happy": ":)", "sad": ":(", "surprised": ":O"}.get(mood, ":|")
""", cases=[(["happy"], ":)"), (["sad"], ":("), (["surprised"], ":O"), (["angry"], ":|"), ([""], ":|"), (["Happy"], ":|")]),
    dict(split="train", difficulty="easy", task="returns True if the last character of the non-empty word `a` is the same as the first character of the non-empty word `b` (case-sensitive), as in a game of word chain, and False otherwise.", ref="""
def ends_match(a: str, b: str) -> bool:
    return a[-1] == b[0]
""", cases=[(["apple", "egg"], True), (["cat", "dog"], False), (["a", "a"], True), (["tree", "Elephant"], False), (["bus", "sun"], True), (["ab", "ab"], False), (["xyz", "zoo"], True)]),
    dict(split="heldout", difficulty="easy", task="returns True if the numbers `a` and `b` differ by at most `tolerance` (whichever of them is larger), and False otherwise.", ref="""
def within(a: int, b: int, tolerance: int) -> bool:
    return abs(a - b) <= tolerance
""", cases=[([10, 12, 2], True), ([10, 13, 2], False), ([5, 5, 0], True), ([7, 3, 4], True), ([7, 2, 4], False), ([-1, 1, 1], False), ([-1, 1, 2], True)]),
    dict(split="train", difficulty="easy", task="returns a new list with `x` added both before the first item and after the last item of `items`.", ref="""
def surround_list(items: list, x) -> list:
    return [x] + items + [x]
""", cases=[([[1, 2], 0], [0, 1, 2, 0]), ([[], 5], [5, 5]), ([["a"], "-"], ["-", "a", "-"]), ([[None], None], [None, None, None]), ([[1, 2, 3], 1], [1, 1, 2, 3, 1])]),
    dict(split="train", difficulty="easy", task="splits the non-negative integer `n` into two whole numbers that add up to `n` and differ by at most one, and returns them as a list with the smaller one first.", ref="""
def split_in_two(n: int) -> list[int]:
    return [n // 2, n - n // 2]
""", cases=[([10], [5, 5]), ([7], [3, 4]), ([0], [0, 0]), ([1], [0, 1]), ([100], [50, 50]), ([15], [7, 8])]),

    dict(split="train", difficulty="medium", task="returns True if each of `r`, `g` and `b` is from 0 to 255, so that together they form a valid RGB colour, and False otherwise.", ref="""
def is_valid_rgb(r: int, g: int, b: int) -> bool:
    return all(0 <= c <= 255 for c in (r, g, b))
""", cases=[([0, 0, 0], True), ([255, 255, 255], True), ([256, 0, 0], False), ([0, -1, 0], False), ([0, 0, 300], False), ([128, 64, 32], True), ([-5, 255, 0], False), ([255, 256, 255], False)]),
    dict(split="train", difficulty="easy", task="returns True if the text `s` is at most 280 characters long, and False otherwise.", ref="""
def fits_in_tweet(s: str) -> bool:
    return len(s) <= 280
""", cases=[(["hello"], True), ([""], True), (["a" * 280], True), (["a" * 281], False), (["b" * 279], True), (["x" * 500], False)]),
    dict(split="train", difficulty="easy", task="returns how many sheets of paper are needed to print `pages` pages double-sided, two pages on each sheet (`pages` is never negative).", ref="""
def sheets_needed(pages: int) -> int:
    return (pages + 1) // 2
""", cases=[([4], 2), ([5], 3), ([0], 0), ([1], 1), ([2], 1), ([11], 6)]),
    dict(split="train", difficulty="easy", task="returns a list of booleans for the string `bits` made of \"0\" and \"1\" characters: True for each \"1\" and False for each \"0\", in order.", ref="""
def bits_to_flags(bits: str) -> list[bool]:
    return [b == "1" for b in bits]
""", cases=[(["101"], [True, False, True]), ([""], []), (["0"], [False]), (["1111"], [True, True, True, True]), (["0110"], [False, True, True, False])]),
    dict(split="heldout", difficulty="easy", task="returns the non-empty string `s` with its last character replaced by the character `c`.", ref="""
def replace_last_char(s: str, c: str) -> str:
    return s[:-1] + c
""", cases=[(["cat", "r"], "car"), (["a", "b"], "b"), (["hello", "!"], "hell!"), (["xx", "x"], "xx"), (["abc", "C"], "abC")]),
]
