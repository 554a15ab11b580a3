"""Build `problems.jsonl`, the problem set written for this project, from the literals below.

    python data/problems/build.py            # rewrite problems.jsonl and bank.jsonl
    python data/problems/build.py --check    # fail if either is out of date
    python data/problems/build.py --out DIR  # write them to DIR instead

Every problem is (task text, reference solution, test cases). The expected output of every
case is computed by running the reference; where a case also states the expected value by
hand, the two must agree (that is the double check). `...` means "no hand value, trust the
reference" and is used only where the hand value would be long (e.g. big lists).

Ids are `py-<tier>-NNN` in the order written here, so append new problems at the end of a
tier: inserting shifts ids. Every fifth problem of a tier (NNN % 5 == 0) is held out.
"""
from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).with_name("problems.jsonl")
BANK = Path(__file__).with_name("bank.jsonl")  # the problem bank's parts, bank_*.py

INSTRUCTION = "Return only the function in a ```python code block."


def P(task: str, ref: str, cases: list[tuple[list, object]]) -> dict:
    """One problem: `task` completes the sentence "Write a Python function `def ...:` that ..."."""
    return {"task": task, "ref": ref.strip("\n") + "\n", "cases": cases}


# --------------------------------------------------------------------------------- easy
EASY = [
    P("returns the sum of the numbers in `nums` (0 for an empty list).", """
def sum_list(nums: list[int]) -> int:
    return sum(nums)
""", [([[1, 2, 3]], 6), ([[]], 0), ([[-5, 5, 10]], 10), ([[100]], 100), ([[-1, -2, -3]], -6)]),

    P("returns the string `s` reversed.", """
def reverse_string(s: str) -> str:
    return s[::-1]
""", [(["hello"], "olleh"), ([""], ""), (["a"], "a"), (["racecar"], "racecar"), (["Ab c"], "c bA")]),

    P("returns how many vowels (a, e, i, o, u, in upper or lower case) the string `s` contains.", """
def count_vowels(s: str) -> int:
    return sum(1 for ch in s.lower() if ch in "aeiou")
""", [(["hello"], 2), (["AEIOU"], 5), (["rhythm"], 0), ([""], 0), (["Programming Is Fun"], 5)]),

    P('returns "FizzBuzz" if `n` is divisible by 15, "Fizz" if it is divisible by 3, '
      '"Buzz" if it is divisible by 5, and otherwise `n` as a string.', """
def fizzbuzz(n: int) -> str:
    if n % 15 == 0:
        return "FizzBuzz"
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    return str(n)
""", [([3], "Fizz"), ([5], "Buzz"), ([15], "FizzBuzz"), ([7], "7"), ([30], "FizzBuzz"), ([1], "1")]),

    P("returns the largest of the three integers `a`, `b` and `c`.", """
def max_of_three(a: int, b: int, c: int) -> int:
    return max(a, b, c)
""", [([1, 2, 3], 3), ([3, 2, 1], 3), ([-1, -5, -3], -1), ([7, 7, 2], 7), ([0, 10, 5], 10)]),

    P("returns True if the integer `n` is even and False otherwise.", """
def is_even(n: int) -> bool:
    return n % 2 == 0
""", [([4], True), ([7], False), ([0], True), ([-2], True), ([-3], False)]),

    P("returns `n` multiplied by itself.", """
def square(n: int) -> int:
    return n * n
""", [([3], 9), ([-4], 16), ([0], 0), ([12], 144), ([1], 1)]),

    P("returns the factorial of the non-negative integer `n` (the factorial of 0 is 1).", """
def factorial(n: int) -> int:
    result = 1
    for k in range(2, n + 1):
        result *= k
    return result
""", [([0], 1), ([1], 1), ([5], 120), ([6], 720), ([10], 3628800)]),

    P("returns True if the string `s` reads the same forwards and backwards "
      "(exact, case-sensitive comparison) and False otherwise.", """
def is_palindrome(s: str) -> bool:
    return s == s[::-1]
""", [(["racecar"], True), (["hello"], False), ([""], True), (["Aa"], False), (["abba"], True)]),

    P("returns how many times the character `c` occurs in the string `s` (case-sensitive).", """
def count_char(s: str, c: str) -> int:
    return s.count(c)
""", [(["banana", "a"], 3), (["hello", "z"], 0), (["", "a"], 0), (["Mississippi", "s"], 4), (["aAaA", "a"], 2)]),

    P("returns the largest number in the non-empty list `nums`.", """
def list_max(nums: list[int]) -> int:
    return max(nums)
""", [([[3, 1, 4, 1, 5]], 5), ([[-3, -1, -2]], -1), ([[7]], 7), ([[2, 2, 2]], 2), ([[0, -7, 12, 3]], 12)]),

    P("returns the smallest number in the non-empty list `nums`.", """
def list_min(nums: list[int]) -> int:
    return min(nums)
""", [([[3, 1, 4]], 1), ([[-3, -1, -2]], -3), ([[7]], 7), ([[0, 5, -10, 3]], -10), ([[4, 4]], 4)]),

    P("returns the absolute value of the integer `n`.", """
def absolute_value(n: int) -> int:
    return -n if n < 0 else n
""", [([-5], 5), ([5], 5), ([0], 0), ([-123], 123), ([1], 1)]),

    P("returns the first item of the list `items`, or None if the list is empty.", """
def first_element(items: list):
    return items[0] if items else None
""", [([[1, 2, 3]], 1), ([[]], None), ([["a", "b"]], "a"), ([[0]], 0), ([[9, 8]], 9)]),

    P("returns the last item of the list `items`, or None if the list is empty.", """
def last_element(items: list):
    return items[-1] if items else None
""", [([[1, 2, 3]], 3), ([[]], None), ([["x"]], "x"), ([[5, 6]], 6), ([[0, 0, 7]], 7)]),

    P("returns the number of words in the string `s`, where words are separated by whitespace.", """
def count_words(s: str) -> int:
    return len(s.split())
""", [(["hello world"], 2), ([""], 0), (["  many   spaces here "], 3), (["one"], 1), (["a b c d e"], 5)]),

    P("returns the string `s` with every letter converted to upper case.", """
def to_upper(s: str) -> str:
    return s.upper()
""", [(["hello"], "HELLO"), (["Hello World"], "HELLO WORLD"), ([""], ""), (["abc123"], "ABC123"), (["X"], "X")]),

    P("returns the sum of the decimal digits of the non-negative integer `n`.", """
def sum_of_digits(n: int) -> int:
    return sum(int(d) for d in str(n))
""", [([123], 6), ([0], 0), ([9999], 36), ([1005], 6), ([7], 7)]),

    P("returns True if the integer `n` is strictly greater than zero and False otherwise.", """
def is_positive(n: int) -> bool:
    return n > 0
""", [([5], True), ([0], False), ([-3], False), ([1], True), ([-100], False)]),

    P("returns a new list with every number in `nums` multiplied by 2.", """
def double_list(nums: list[int]) -> list[int]:
    return [2 * x for x in nums]
""", [([[1, 2, 3]], [2, 4, 6]), ([[]], []), ([[-1, 0]], [-2, 0]), ([[50]], [100]), ([[7, 7]], [14, 14])]),

    P("returns a list of the even numbers in `nums`, in their original order.", """
def filter_even(nums: list[int]) -> list[int]:
    return [x for x in nums if x % 2 == 0]
""", [([[1, 2, 3, 4]], [2, 4]), ([[]], []), ([[1, 3, 5]], []), ([[0, -2, 7]], [0, -2]), ([[10, 11, 12]], [10, 12])]),

    P("returns the number of characters in the string `s`.", """
def string_length(s: str) -> int:
    return len(s)
""", [(["hello"], 5), ([""], 0), (["a b"], 3), (["python!"], 7), (["  "], 2)]),

    P("returns the string `a` followed by the string `b`.", """
def concat_strings(a: str, b: str) -> str:
    return a + b
""", [(["foo", "bar"], "foobar"), (["", "x"], "x"), (["a", ""], "a"), (["Hello, ", "World"], "Hello, World"), (["", ""], "")]),

    P("returns the product of the numbers in `nums` (1 for an empty list).", """
def product_list(nums: list[int]) -> int:
    result = 1
    for x in nums:
        result *= x
    return result
""", [([[1, 2, 3, 4]], 24), ([[]], 1), ([[5]], 5), ([[-2, 3]], -6), ([[0, 100]], 0)]),

    P("returns how many numbers in `nums` are strictly greater than zero.", """
def count_positive(nums: list[int]) -> int:
    return sum(1 for x in nums if x > 0)
""", [([[1, -2, 3, 0]], 2), ([[]], 0), ([[-1, -1]], 0), ([[5, 5, 5]], 3), ([[0]], 0)]),

    P("returns the string `s` repeated `n` times (`n` is never negative).", """
def repeat_string(s: str, n: int) -> str:
    return s * n
""", [(["ab", 3], "ababab"), (["x", 0], ""), (["", 5], ""), (["hi", 1], "hi"), (["-", 4], "----")]),

    P("returns True if `year` is a leap year: divisible by 4 but not by 100, "
      "unless it is also divisible by 400.", """
def is_leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
""", [([2000], True), ([1900], False), ([2024], True), ([2023], False), ([2100], False)]),

    P("returns 1 if `n` is positive, -1 if it is negative and 0 if it is zero.", """
def sign(n: int) -> int:
    if n > 0:
        return 1
    if n < 0:
        return -1
    return 0
""", [([5], 1), ([-3], -1), ([0], 0), ([100], 1), ([-1], -1)]),

    P("returns `s` with its first character converted to upper case and the rest unchanged "
      "(an empty string stays empty).", """
def capitalize_first(s: str) -> str:
    return s[:1].upper() + s[1:]
""", [(["hello"], "Hello"), (["hELLO"], "HELLO"), ([""], ""), (["1abc"], "1abc"), (["a"], "A")]),

    P("returns True if `x` is an element of the list `items` and False otherwise.", """
def contains(items: list, x) -> bool:
    return x in items
""", [([[1, 2, 3], 2], True), ([[1, 2, 3], 5], False), ([[], 1], False), ([["a", "b"], "b"], True), ([["a"], "A"], False)]),

    P("returns the string `s` with every space character removed.", """
def remove_spaces(s: str) -> str:
    return s.replace(" ", "")
""", [(["a b c"], "abc"), (["  hi  "], "hi"), ([""], ""), (["nospace"], "nospace"), (["x y"], "xy")]),

    P("returns how many times the value `x` occurs in the list `nums`.", """
def count_occurrences(nums: list[int], x: int) -> int:
    return nums.count(x)
""", [([[1, 2, 1, 1], 1], 3), ([[], 1], 0), ([[2, 3], 4], 0), ([[5, 5], 5], 2), ([[0, 1, 0], 0], 2)]),

    P("returns the sum of all integers from `a` to `b` inclusive (`a` <= `b`).", """
def sum_range(a: int, b: int) -> int:
    return sum(range(a, b + 1))
""", [([1, 5], 15), ([3, 3], 3), ([-2, 2], 0), ([10, 12], 33), ([1, 100], 5050)]),

    P("returns True if `a` is divisible by `b` (`b` is never zero) and False otherwise.", """
def is_divisible(a: int, b: int) -> bool:
    return a % b == 0
""", [([10, 5], True), ([10, 3], False), ([0, 7], True), ([-9, 3], True), ([7, 2], False)]),

    P("returns the `n`-th Fibonacci number, where fibonacci(0) is 0 and fibonacci(1) is 1.", """
def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
""", [([0], 0), ([1], 1), ([2], 1), ([7], 13), ([10], 55), ([20], 6765)]),

    P("returns the strings in `words` joined with a single space between them.", """
def join_words(words: list[str]) -> str:
    return " ".join(words)
""", [([["hello", "world"]], "hello world"), ([[]], ""), ([["one"]], "one"), ([["a", "b", "c"]], "a b c"), ([["x", ""]], "x ")]),

    P("returns the sum of the squares of the numbers in `nums`.", """
def sum_of_squares(nums: list[int]) -> int:
    return sum(x * x for x in nums)
""", [([[1, 2, 3]], 14), ([[]], 0), ([[-2]], 4), ([[0, 0]], 0), ([[10, 1]], 101)]),

    P("returns True if the single character `c` is a vowel (a, e, i, o or u, in any case).", """
def is_vowel(c: str) -> bool:
    return c.lower() in ("a", "e", "i", "o", "u")
""", [(["a"], True), (["E"], True), (["b"], False), (["z"], False), (["U"], True)]),

    P("returns the absolute difference between the integers `a` and `b`.", """
def absolute_difference(a: int, b: int) -> int:
    return abs(a - b)
""", [([3, 10], 7), ([10, 3], 7), ([-5, 5], 10), ([4, 4], 0), ([-2, -9], 7)]),

    P("returns the area of a rectangle with the given integer `width` and `height`.", """
def rectangle_area(width: int, height: int) -> int:
    return width * height
""", [([3, 4], 12), ([0, 5], 0), ([7, 7], 49), ([1, 100], 100), ([12, 3], 36)]),

    P("returns how many upper-case letters the string `s` contains.", """
def count_uppercase(s: str) -> int:
    return sum(1 for ch in s if ch.isupper())
""", [(["Hello World"], 2), (["abc"], 0), (["ABC"], 3), ([""], 0), (["A1b2C3"], 2)]),

    P("returns the largest number in the non-empty list `nums` minus the smallest one.", """
def value_range(nums: list[int]) -> int:
    return max(nums) - min(nums)
""", [([[1, 5, 3]], 4), ([[7]], 0), ([[-2, 2]], 4), ([[10, 10, 10]], 0), ([[3, -8, 6]], 14)]),

    P("returns a new list with the items of `items` in reverse order.", """
def reverse_list(items: list) -> list:
    return items[::-1]
""", [([[1, 2, 3]], [3, 2, 1]), ([[]], []), ([["a", "b"]], ["b", "a"]), ([[1]], [1]), ([[1, 2, 2]], [2, 2, 1])]),

    P("returns `n` raised to the third power.", """
def cube(n: int) -> int:
    return n * n * n
""", [([2], 8), ([-3], -27), ([0], 0), ([10], 1000), ([1], 1)]),

    P('returns the letter grade for a score from 0 to 100: "A" for 90 or more, "B" for 80-89, '
      '"C" for 70-79, "D" for 60-69 and "F" below 60.', """
def letter_grade(score: int) -> str:
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    if score >= 70:
        return "C"
    if score >= 60:
        return "D"
    return "F"
""", [([95], "A"), ([90], "A"), ([85], "B"), ([72], "C"), ([60], "D"), ([59], "F"), ([0], "F")]),

    P("returns the index of the first occurrence of `x` in the list `items`, or -1 if it is absent.", """
def index_of(items: list, x) -> int:
    for i, item in enumerate(items):
        if item == x:
            return i
    return -1
""", [([[5, 6, 7], 6], 1), ([[5, 6, 7], 9], -1), ([[], 1], -1), ([[1, 2, 1], 1], 0), ([["a", "b"], "b"], 1)]),

    P('returns the greeting "Hello, <name>!" for the given `name`.', """
def greet(name: str) -> str:
    return f"Hello, {name}!"
""", [(["Alice"], "Hello, Alice!"), (["Bob"], "Hello, Bob!"), ([""], "Hello, !"), (["World"], "Hello, World!")]),

    P("returns True if every number in `nums` is strictly greater than zero "
      "(True for an empty list) and False otherwise.", """
def all_positive(nums: list[int]) -> bool:
    return all(x > 0 for x in nums)
""", [([[1, 2, 3]], True), ([[1, -2, 3]], False), ([[]], True), ([[0]], False), ([[9]], True)]),

    P("returns `base` raised to the non-negative integer power `exp`.", """
def power(base: int, exp: int) -> int:
    return base ** exp
""", [([2, 10], 1024), ([5, 0], 1), ([-3, 3], -27), ([7, 2], 49), ([1, 50], 1)]),

    P("returns the last decimal digit of the non-negative integer `n`.", """
def last_digit(n: int) -> int:
    return n % 10
""", [([123], 3), ([0], 0), ([7], 7), ([1000], 0), ([98765], 5)]),
]

# ------------------------------------------------------------------------------- medium
MEDIUM = [
    P("returns the items of `items` with duplicates removed, keeping the first occurrence "
      "of each value and the original order.", """
def remove_duplicates(items: list[int]) -> list[int]:
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
""", [([[1, 2, 1, 3, 2]], [1, 2, 3]), ([[]], []), ([[5, 5, 5]], [5]), ([[3, 1, 2]], [3, 1, 2]),
      ([[1, 2, 3, 1, 2, 3]], [1, 2, 3])]),

    P("returns the second largest distinct value in `nums`, or None if `nums` has fewer than "
      "two distinct values.", """
def second_largest(nums: list[int]) -> int | None:
    values = sorted(set(nums), reverse=True)
    return values[1] if len(values) >= 2 else None
""", [([[1, 2, 3]], 2), ([[5, 5, 4]], 4), ([[7, 7]], None), ([[1]], None), ([[-1, -5, -3]], -3),
      ([[10, 20, 20, 15]], 15)]),

    P("returns True if the strings `a` and `b` are anagrams of each other, ignoring case and spaces.", """
def is_anagram(a: str, b: str) -> bool:
    def norm(s):
        return sorted(s.replace(" ", "").lower())
    return norm(a) == norm(b)
""", [(["listen", "silent"], True), (["Dormitory", "dirty room"], True), (["hello", "world"], False),
      (["abc", "abcc"], False), (["", ""], True)]),

    P("returns a dictionary mapping each word of `text` to how many times it occurs. Words are "
      "the whitespace-separated parts of `text`, converted to lower case.", """
def word_frequencies(text: str) -> dict[str, int]:
    counts = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    return counts
""", [(["the cat the dog"], {"the": 2, "cat": 1, "dog": 1}), ([""], {}), (["A a A"], {"a": 3}),
      (["one two three"], {"one": 1, "two": 1, "three": 1}), (["Hi  hi"], {"hi": 2})]),

    P("returns True if the integer `n` is a prime number and False otherwise.", """
def is_prime(n: int) -> bool:
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True
""", [([2], True), ([1], False), ([0], False), ([17], True), ([18], False), ([97], True), ([-7], False),
      ([91], False)]),

    P("returns the list of all prime numbers less than or equal to `n`, in increasing order.", """
def primes_up_to(n: int) -> list[int]:
    if n < 2:
        return []
    is_p = [True] * (n + 1)
    is_p[0] = is_p[1] = False
    for k in range(2, int(n ** 0.5) + 1):
        if is_p[k]:
            for m in range(k * k, n + 1, k):
                is_p[m] = False
    return [k for k in range(n + 1) if is_p[k]]
""", [([10], [2, 3, 5, 7]), ([1], []), ([2], [2]), ([30], [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]), ([0], [])]),

    P("returns the greatest common divisor of the non-negative integers `a` and `b` "
      "(they are never both zero).", """
def gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
""", [([12, 18], 6), ([17, 5], 1), ([0, 9], 9), ([100, 75], 25), ([7, 7], 7)]),

    P("returns the least common multiple of the positive integers `a` and `b`.", """
def lcm(a: int, b: int) -> int:
    x, y = a, b
    while y:
        x, y = y, x % y
    return a * b // x
""", [([4, 6], 12), ([3, 5], 15), ([7, 7], 7), ([1, 9], 9), ([12, 18], 36)]),

    P("flattens one level of nesting: it returns the elements of the inner lists of `nested` "
      "in order, as one list.", """
def flatten(nested: list[list[int]]) -> list[int]:
    return [x for inner in nested for x in inner]
""", [([[[1, 2], [3], []]], [1, 2, 3]), ([[]], []), ([[[], []]], []), ([[[5], [6, 7], [8]]], [5, 6, 7, 8]),
      ([[[1, 1]]], [1, 1])]),

    P("splits `items` into consecutive chunks of length `size` (the last chunk may be shorter) "
      "and returns the list of chunks. `size` is at least 1.", """
def chunk_list(items: list[int], size: int) -> list[list[int]]:
    return [items[i:i + size] for i in range(0, len(items), size)]
""", [([[1, 2, 3, 4, 5], 2], [[1, 2], [3, 4], [5]]), ([[], 3], []), ([[1, 2, 3], 3], [[1, 2, 3]]),
      ([[1, 2, 3], 1], [[1], [2], [3]]), ([[1, 2], 5], [[1, 2]])]),

    P("run-length encodes `s`: each run of a repeated character becomes the character followed by "
      "the length of the run.", """
def run_length_encode(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + str(j - i))
        i = j
    return "".join(out)
""", [(["aaabcc"], "a3b1c2"), ([""], ""), (["a"], "a1"), (["abab"], "a1b1a1b1"), (["zzzzzzzzzzzz"], "z12")]),

    P("shifts every letter of `text` by `shift` places in the alphabet, wrapping around from z to a "
      "and keeping upper/lower case; other characters are unchanged. `shift` may be negative or "
      "larger than 26.", """
def caesar_cipher(text: str, shift: int) -> str:
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - ord("a") + shift) % 26 + ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - ord("A") + shift) % 26 + ord("A")))
        else:
            out.append(ch)
    return "".join(out)
""", [(["abc", 1], "bcd"), (["xyz", 3], "abc"), (["Hello, World!", 5], "Mjqqt, Btwqi!"), (["abc", -1], "zab"),
      (["abc", 27], "bcd")]),

    P('returns the binary representation of the non-negative integer `n` as a string of 0s and 1s, '
      'without a "0b" prefix (0 gives "0").', """
def to_binary(n: int) -> str:
    if n == 0:
        return "0"
    digits = []
    while n:
        digits.append(str(n % 2))
        n //= 2
    return "".join(reversed(digits))
""", [([0], "0"), ([5], "101"), ([8], "1000"), ([255], "11111111"), ([1], "1")]),

    P("converts the string `s` of binary digits (0s and 1s) into the integer it represents.", """
def from_binary(s: str) -> int:
    value = 0
    for ch in s:
        value = value * 2 + (1 if ch == "1" else 0)
    return value
""", [(["101"], 5), (["0"], 0), (["1111"], 15), (["100000"], 32), (["1"], 1)]),

    P("returns the character that occurs most often in the non-empty string `s`; if several "
      "characters tie, return the one that appears first in `s`.", """
def most_common_char(s: str) -> str:
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    best = max(counts.values())
    for ch in s:
        if counts[ch] == best:
            return ch
""", [(["hello"], "l"), (["aabb"], "a"), (["abcabcc"], "c"), (["z"], "z"), (["bbaa"], "b")]),

    P("returns `[i, j]` with `i < j` such that `nums[i] + nums[j] == target`. If several pairs work, "
      "return the one with the smallest `j`, and among those the smallest `i`. Return `[]` if no pair works.", """
def two_sum(nums: list[int], target: int) -> list[int]:
    for j in range(len(nums)):
        for i in range(j):
            if nums[i] + nums[j] == target:
                return [i, j]
    return []
""", [([[2, 7, 11, 15], 9], [0, 1]), ([[3, 2, 4], 6], [1, 2]), ([[3, 3], 6], [0, 1]), ([[1, 2, 3], 10], []),
      ([[0, 4, 3, 0], 0], [0, 3]), ([[1, 5, 1, 5], 6], [0, 1])]),

    P("merges the two sorted lists `a` and `b` into one sorted list (keeping duplicates).", """
def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]
""", [([[1, 3, 5], [2, 4, 6]], [1, 2, 3, 4, 5, 6]), ([[], [1, 2]], [1, 2]), ([[1, 1], [1]], [1, 1, 1]),
      ([[], []], []), ([[5], [1, 2, 3]], [1, 2, 3, 5])]),

    P("returns `items` rotated to the right by `k` places (`k` >= 0 may exceed the length): the "
      "last `k` items move to the front.", """
def rotate_right(items: list[int], k: int) -> list[int]:
    if not items:
        return []
    k %= len(items)
    return items[-k:] + items[:-k] if k else list(items)
""", [([[1, 2, 3, 4, 5], 2], [4, 5, 1, 2, 3]), ([[1, 2, 3], 0], [1, 2, 3]), ([[1, 2, 3], 3], [1, 2, 3]),
      ([[1, 2, 3], 4], [3, 1, 2]), ([[], 5], [])]),

    P("returns `s` with every whitespace-separated word capitalised (first letter upper case, "
      "the rest lower case), the words joined by single spaces.", """
def capitalize_words(s: str) -> str:
    return " ".join(w[0].upper() + w[1:].lower() for w in s.split())
""", [(["hello world"], "Hello World"), (["hELLO   wORLD"], "Hello World"), ([""], ""), (["python"], "Python"),
      (["a b c"], "A B C")]),

    P("returns how many times the non-empty string `sub` occurs in `s`, counting overlapping "
      "occurrences.", """
def count_substring(s: str, sub: str) -> int:
    return sum(1 for i in range(len(s) - len(sub) + 1) if s[i:i + len(sub)] == sub)
""", [(["aaaa", "aa"], 3), (["hello", "l"], 2), (["abc", "d"], 0), (["abababa", "aba"], 3), (["", "a"], 0)]),

    P("returns the decimal digits of the non-negative integer `n` as a list of integers, "
      "most significant first.", """
def digit_list(n: int) -> list[int]:
    return [int(d) for d in str(n)]
""", [([123], [1, 2, 3]), ([0], [0]), ([9], [9]), ([1050], [1, 0, 5, 0]), ([77], [7, 7])]),

    P("returns True if `nums` is sorted in non-decreasing order and False otherwise.", """
def is_sorted(nums: list[int]) -> bool:
    return all(nums[i] <= nums[i + 1] for i in range(len(nums) - 1))
""", [([[1, 2, 2, 3]], True), ([[3, 2]], False), ([[]], True), ([[5]], True), ([[1, 3, 2]], False)]),

    P("returns the running sums of `nums`: element i of the result is nums[0] + ... + nums[i].", """
def running_sum(nums: list[int]) -> list[int]:
    out = []
    total = 0
    for x in nums:
        total += x
        out.append(total)
    return out
""", [([[1, 2, 3, 4]], [1, 3, 6, 10]), ([[]], []), ([[5]], [5]), ([[1, -1, 1]], [1, 0, 1]), ([[0, 0]], [0, 0])]),

    P("returns the largest sum of a contiguous, non-empty sub-list of the non-empty list `nums`.", """
def max_subarray_sum(nums: list[int]) -> int:
    best = current = nums[0]
    for x in nums[1:]:
        current = max(x, current + x)
        best = max(best, current)
    return best
""", [([[-2, 1, -3, 4, -1, 2, 1, -5, 4]], 6), ([[1]], 1), ([[-3, -1, -2]], -1), ([[5, 4, -1, 7, 8]], 23),
      ([[2, -1, 2]], 3)]),

    P("returns the transpose of the rectangular matrix `matrix` (a list of rows): row i of the "
      "result is column i of the input. An empty matrix gives [].", """
def transpose(matrix: list[list[int]]) -> list[list[int]]:
    if not matrix:
        return []
    return [[row[i] for row in matrix] for i in range(len(matrix[0]))]
""", [([[[1, 2, 3], [4, 5, 6]]], [[1, 4], [2, 5], [3, 6]]), ([[[1]]], [[1]]), ([[[1, 2]]], [[1], [2]]),
      ([[[1], [2]]], [[1, 2]]), ([[]], [])]),

    P("returns the sum of the main diagonal (top-left to bottom-right) of the square matrix `matrix`.", """
def diagonal_sum(matrix: list[list[int]]) -> int:
    return sum(matrix[i][i] for i in range(len(matrix)))
""", [([[[1, 2], [3, 4]]], 5), ([[[5]]], 5), ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], 15), ([[[-1, 0], [0, -1]]], -2)]),

    P("returns True if the brackets (), [] and {} in `s` are balanced and properly nested; "
      "other characters are ignored.", """
def balanced_brackets(s: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack
""", [(["()"], True), (["([]{})"], True), (["(]"], False), (["(("], False), ([""], True), (["a(b)c"], True),
      ([")("], False), (["([)]"], False)]),

    P("converts the Roman numeral `s` (I, V, X, L, C, D, M, with subtractive forms such as IV and CM) "
      "to an integer.", """
def roman_to_int(s: str) -> int:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for i, ch in enumerate(s):
        v = values[ch]
        if i + 1 < len(s) and values[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total
""", [(["III"], 3), (["IV"], 4), (["IX"], 9), (["LVIII"], 58), (["MCMXCIV"], 1994), (["MMXXIV"], 2024)]),

    P("converts the integer `n` (1 to 3999) to a Roman numeral, using subtractive forms "
      "such as IV, IX, XL, XC, CD and CM.", """
def int_to_roman(n: int) -> str:
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, numeral in table:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)
""", [([3], "III"), ([4], "IV"), ([9], "IX"), ([58], "LVIII"), ([1994], "MCMXCIV"), ([3999], "MMMCMXCIX")]),

    P('translates the lower-case word `word` into Pig Latin: if it starts with a vowel (a, e, i, o, u) '
      'append "way"; otherwise move all consonants before the first vowel to the end and append "ay" '
      '(a word without vowels just gets "ay").', """
def pig_latin(word: str) -> str:
    if word[:1] in ("a", "e", "i", "o", "u"):
        return word + "way"
    for i, ch in enumerate(word):
        if ch in "aeiou":
            return word[i:] + word[:i] + "ay"
    return word + "ay"
""", [(["apple"], "appleway"), (["hello"], "ellohay"), (["string"], "ingstray"), (["rhythm"], "rhythmay"),
      (["eat"], "eatway")]),

    P("returns the longest whitespace-separated word in `sentence` (the first one if several are "
      'equally long, and "" if there are no words).', """
def longest_word(sentence: str) -> str:
    best = ""
    for word in sentence.split():
        if len(word) > len(best):
            best = word
    return best
""", [(["the quick brown fox"], "quick"), (["a bb cc"], "bb"), ([""], ""), (["hello"], "hello"),
      (["jumps over lazy dogs"], "jumps")]),

    P("receives `n` distinct numbers taken from 0, 1, ..., n (so exactly one is missing) and "
      "returns the missing number.", """
def missing_number(nums: list[int]) -> int:
    n = len(nums)
    return n * (n + 1) // 2 - sum(nums)
""", [([[3, 0, 1]], 2), ([[0, 1]], 2), ([[1]], 0), ([[9, 6, 4, 2, 3, 5, 7, 0, 1]], 8), ([[0]], 1)]),

    P("returns the sorted list of values that occur more than once in `nums`, each listed once.", """
def find_duplicates(nums: list[int]) -> list[int]:
    counts = {}
    for x in nums:
        counts[x] = counts.get(x, 0) + 1
    return sorted(x for x, c in counts.items() if c > 1)
""", [([[1, 2, 3, 2, 1]], [1, 2]), ([[]], []), ([[1, 2, 3]], []), ([[5, 5, 5]], [5]),
      ([[4, 3, 2, 7, 8, 2, 3, 1]], [2, 3])]),

    P("returns the sorted list of distinct values that occur in both `a` and `b`.", """
def intersection(a: list[int], b: list[int]) -> list[int]:
    return sorted(set(a) & set(b))
""", [([[1, 2, 2, 1], [2, 2]], [2]), ([[4, 9, 5], [9, 4, 9, 8, 4]], [4, 9]), ([[], [1]], []), ([[1, 2], [3, 4]], []),
      ([[3, 1, 2], [2, 3, 1]], [1, 2, 3])]),

    P('converts the camelCase identifier `s` (starting with a lower-case letter) to snake_case: '
      'every upper-case letter becomes "_" followed by its lower-case form.', """
def camel_to_snake(s: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in s)
""", [(["helloWorld"], "hello_world"), (["camelCaseString"], "camel_case_string"), (["simple"], "simple"),
      (["getHTTP"], "get_h_t_t_p"), (["x"], "x")]),

    P('converts the snake_case identifier `s` to camelCase: the first word stays as it is and each '
      'following word has its first letter upper-cased, e.g. "hello_world" becomes "helloWorld".', """
def snake_to_camel(s: str) -> str:
    parts = s.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
""", [(["hello_world"], "helloWorld"), (["snake_case_string"], "snakeCaseString"), (["simple"], "simple"),
      (["a_b_c"], "aBC"), (["get_url"], "getUrl")]),

    P("returns `s` with every run of whitespace replaced by a single space and leading and "
      "trailing whitespace removed.", """
def normalize_whitespace(s: str) -> str:
    return " ".join(s.split())
""", [(["  hello   world  "], "hello world"), (["a\tb\nc"], "a b c"), ([""], ""), (["x"], "x"),
      (["   "], "")]),

    P("returns `[letters, digits]`: how many letters and how many digits the string `s` contains.", """
def count_letters_digits(s: str) -> list[int]:
    return [sum(ch.isalpha() for ch in s), sum(ch.isdigit() for ch in s)]
""", [(["abc123"], [3, 3]), ([""], [0, 0]), (["hello world!"], [10, 0]), (["2024"], [0, 4]), (["a1-b2"], [2, 2])]),

    P("returns the sum of all natural numbers below `n` that are multiples of 3 or 5.", """
def sum_of_multiples(n: int) -> int:
    return sum(k for k in range(1, n) if k % 3 == 0 or k % 5 == 0)
""", [([10], 23), ([1], 0), ([16], 60), ([20], 78), ([1000], 233168)]),

    P("returns how many steps the Collatz process takes to reach 1 from the positive integer `n` "
      "(a step maps an even n to n // 2 and an odd n to 3n + 1).", """
def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
""", [([1], 0), ([2], 1), ([3], 7), ([6], 8), ([27], 111)]),

    P("returns the digital root of the non-negative integer `n`: repeatedly sum its decimal digits "
      "until a single digit remains.", """
def digital_root(n: int) -> int:
    while n >= 10:
        n = sum(int(d) for d in str(n))
    return n
""", [([16], 7), ([942], 6), ([0], 0), ([132189], 6), ([9], 9)]),

    P("returns True if the non-negative integer `n` is an Armstrong number: the sum of its digits, "
      "each raised to the power of the number of digits, equals `n`.", """
def is_armstrong(n: int) -> bool:
    digits = str(n)
    return sum(int(d) ** len(digits) for d in digits) == n
""", [([153], True), ([370], True), ([9474], True), ([10], False), ([0], True), ([100], False)]),

    P("returns True if the positive integer `n` is a perfect number (equal to the sum of its "
      "divisors smaller than itself).", """
def is_perfect(n: int) -> bool:
    return n > 1 and sum(d for d in range(1, n) if n % d == 0) == n
""", [([6], True), ([28], True), ([12], False), ([1], False), ([496], True)]),

    P("returns the prime factors of the integer `n` (n >= 2) in increasing order, each repeated "
      "as often as it divides `n`.", """
def prime_factors(n: int) -> list[int]:
    out = []
    k = 2
    while k * k <= n:
        while n % k == 0:
            out.append(k)
            n //= k
        k += 1
    if n > 1:
        out.append(n)
    return out
""", [([12], [2, 2, 3]), ([13], [13]), ([100], [2, 2, 5, 5]), ([2], [2]), ([360], [2, 2, 2, 3, 3, 5])]),

    P("returns row `n` of Pascal's triangle (row 0 is [1], row 1 is [1, 1]).", """
def pascal_row(n: int) -> list[int]:
    row = [1]
    for _ in range(n):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row
""", [([0], [1]), ([1], [1, 1]), ([4], [1, 4, 6, 4, 1]), ([5], [1, 5, 10, 10, 5, 1]), ([2], [1, 2, 1])]),

    P("returns a dictionary mapping `keys[i]` to `values[i]`, stopping at the end of the shorter "
      "list; if a key repeats, the later value wins.", """
def zip_to_dict(keys: list[str], values: list[int]) -> dict[str, int]:
    return dict(zip(keys, values))
""", [([["a", "b"], [1, 2]], {"a": 1, "b": 2}), ([[], []], {}), ([["x", "y", "z"], [1]], {"x": 1}),
      ([["a", "a"], [1, 2]], {"a": 2}), ([["k"], [5, 6]], {"k": 5})]),

    P("returns a new dictionary with the keys and values of `d` swapped (the values of `d` are "
      "distinct strings).", """
def invert_dict(d: dict[str, str]) -> dict[str, str]:
    return {v: k for k, v in d.items()}
""", [([{"a": "1", "b": "2"}], {"1": "a", "2": "b"}), ([{}], {}), ([{"x": "y"}], {"y": "x"}),
      ([{"one": "uno", "two": "dos"}], {"uno": "one", "dos": "two"})]),

    P("returns the indices `i` with 0 < i < len(nums) - 1 where `nums[i]` is strictly greater than "
      "both of its neighbours, in increasing order.", """
def peak_indices(nums: list[int]) -> list[int]:
    return [i for i in range(1, len(nums) - 1) if nums[i] > nums[i - 1] and nums[i] > nums[i + 1]]
""", [([[1, 3, 2, 4, 1]], [1, 3]), ([[1, 2, 3]], []), ([[]], []), ([[5, 1, 5, 1, 5]], [2]), ([[1, 2, 2, 1]], [])]),

    P("returns True if the password `p` has at least 8 characters and contains at least one "
      "upper-case letter, one lower-case letter and one digit.", """
def is_valid_password(p: str) -> bool:
    return (len(p) >= 8 and any(c.isupper() for c in p) and any(c.islower() for c in p)
            and any(c.isdigit() for c in p))
""", [(["Password1"], True), (["password1"], False), (["PASSWORD1"], False), (["Pass1"], False),
      (["Passwordd"], False), (["abcDEF123"], True)]),

    P("returns the most frequent value in the non-empty list `nums`; if several values are equally "
      "frequent, return the smallest of them.", """
def mode(nums: list[int]) -> int:
    counts = {}
    for x in nums:
        counts[x] = counts.get(x, 0) + 1
    best = max(counts.values())
    return min(x for x, c in counts.items() if c == best)
""", [([[1, 2, 2, 3]], 2), ([[1, 1, 2, 2]], 1), ([[5]], 5), ([[3, 3, 1, 1, 2, 2, 2]], 2), ([[-1, -1, 0, 0]], -1)]),

    P("returns the low median of the non-empty list `nums`: the element at index (n - 1) // 2 of "
      "the sorted list, where n is its length.", """
def median_low(nums: list[int]) -> int:
    return sorted(nums)[(len(nums) - 1) // 2]
""", [([[3, 1, 2]], 2), ([[4, 1, 3, 2]], 2), ([[5]], 5), ([[10, -10]], -10), ([[9, 9, 1, 1, 5]], 5)]),

    P("returns how many distinct words `text` contains, ignoring case and stripping the punctuation "
      "characters . , ! ? from the ends of each whitespace-separated word (empty results are not words).", """
def count_unique_words(text: str) -> int:
    words = {w.strip(".,!?").lower() for w in text.split()}
    words.discard("")
    return len(words)
""", [(["Hello hello world"], 2), ([""], 0), (["Hi! hi. HI?"], 1), (["a b c a"], 3), (["Yes, no, yes."], 2),
      (["! ?"], 0)]),

    P("returns the number of positions at which the equal-length strings `a` and `b` differ.", """
def hamming_distance(a: str, b: str) -> int:
    return sum(1 for x, y in zip(a, b) if x != y)
""", [(["karolin", "kathrin"], 3), (["", ""], 0), (["abc", "abc"], 0), (["1011101", "1001001"], 2), (["ab", "ba"], 2)]),

    P("returns True if no letter occurs more than once in `s`, ignoring case; hyphens and spaces "
      "may repeat.", """
def is_isogram(s: str) -> bool:
    letters = [ch.lower() for ch in s if ch not in "- "]
    return len(letters) == len(set(letters))
""", [(["lumberjacks"], True), (["isograms"], False), (["six-year-old"], True), (["Alphabet"], False), ([""], True)]),

    P("returns the words sorted by length, shortest first; words of equal length keep their "
      "original order.", """
def sort_by_length(words: list[str]) -> list[str]:
    return sorted(words, key=len)
""", [([["banana", "kiwi", "apple", "fig"]], ["fig", "kiwi", "apple", "banana"]), ([[]], []),
      ([["bb", "a", "cc", "d"]], ["a", "d", "bb", "cc"]), ([["same", "size"]], ["same", "size"])]),

    P("returns the index of `target` in the ascending list of distinct integers `nums`, or -1 if it "
      "is absent, using binary search.", """
def binary_search(nums: list[int], target: int) -> int:
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
""", [([[1, 3, 5, 7, 9], 7], 3), ([[1, 3, 5, 7, 9], 4], -1), ([[], 1], -1), ([[2], 2], 0), ([[1, 2, 3, 4, 5, 6], 1], 0),
      ([[1, 2, 3, 4, 5, 6], 6], 5)]),

    P("returns the `k`-th smallest element of `nums` (k = 1 is the minimum; duplicates count "
      "separately).", """
def kth_smallest(nums: list[int], k: int) -> int:
    return sorted(nums)[k - 1]
""", [([[3, 1, 2], 1], 1), ([[3, 1, 2], 3], 3), ([[5, 5, 1], 2], 5), ([[7], 1], 7), ([[4, 2, 9, 1], 2], 2)]),

    P("returns the number of distinct ways to climb a staircase of `n` steps taking 1 or 2 steps "
      "at a time (there is 1 way to climb 0 steps).", """
def climb_stairs(n: int) -> int:
    a, b = 1, 1
    for _ in range(n):
        a, b = b, a + b
    return a
""", [([0], 1), ([1], 1), ([2], 2), ([3], 3), ([5], 8), ([10], 89)]),

    P("returns the number of paths from the top-left to the bottom-right cell of a grid with `rows` "
      "rows and `cols` columns, moving only right or down.", """
def unique_paths(rows: int, cols: int) -> int:
    row = [1] * cols
    for _ in range(rows - 1):
        for c in range(1, cols):
            row[c] += row[c - 1]
    return row[-1]
""", [([3, 7], 28), ([3, 2], 3), ([1, 1], 1), ([2, 2], 2), ([5, 5], 70)]),

    P("returns True if `s` is a valid IPv4 address: four decimal numbers from 0 to 255 separated by "
      'dots, digits only, with no leading zeros (except "0" itself).', """
def is_valid_ipv4(s: str) -> bool:
    parts = s.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part or not all(ch in "0123456789" for ch in part):
            return False
        if len(part) > 1 and part[0] == "0":
            return False
        if int(part) > 255:
            return False
    return True
""", [(["192.168.1.1"], True), (["255.255.255.255"], True), (["256.1.1.1"], False), (["1.2.3"], False),
      (["01.2.3.4"], False), (["a.b.c.d"], False), (["0.0.0.0"], True), (["1.2.3.4.5"], False), ([""], False)]),

    P("returns the number of 1 bits in the binary representation of the non-negative integer `n`.", """
def count_bits(n: int) -> int:
    count = 0
    while n:
        count += n & 1
        n >>= 1
    return count
""", [([0], 0), ([5], 2), ([255], 8), ([1024], 1), ([7], 3)]),

    P("returns a list whose element i is the product of all elements of `nums` except nums[i] "
      "(for a single element the product of nothing is 1).", """
def product_except_self(nums: list[int]) -> list[int]:
    n = len(nums)
    out = [1] * n
    left = 1
    for i in range(n):
        out[i] = left
        left *= nums[i]
    right = 1
    for i in range(n - 1, -1, -1):
        out[i] *= right
        right *= nums[i]
    return out
""", [([[1, 2, 3, 4]], [24, 12, 8, 6]), ([[2, 3]], [3, 2]), ([[0, 1, 2]], [2, 0, 0]), ([[5]], [1]),
      ([[-1, 1, 0, -3, 3]], [0, 0, 9, 0, 0])]),
]

# --------------------------------------------------------------------------------- hard
SUDOKU_OK = ["53..7....", "6..195...", ".98....6.", "8...6...3", "4..8.3..1",
             "7...2...6", ".6....28.", "...419..5", "....8..79"]

HARD = [
    P("returns the edit (Levenshtein) distance between `a` and `b`: the minimum number of "
      "single-character insertions, deletions and substitutions turning `a` into `b`.", """
def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[-1]
""", [(["kitten", "sitting"], 3), (["", "abc"], 3), (["abc", "abc"], 0), (["horse", "ros"], 3),
      (["intention", "execution"], 5), (["flaw", "lawn"], 2)]),

    P("returns the length of the longest strictly increasing subsequence of `nums`.", """
def lis_length(nums: list[int]) -> int:
    import bisect
    tails = []
    for x in nums:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
""", [([[10, 9, 2, 5, 3, 7, 101, 18]], 4), ([[]], 0), ([[0, 1, 0, 3, 2, 3]], 4), ([[7, 7, 7]], 1),
      ([[1, 2, 3, 4]], 4), ([[5, 4, 3]], 1)]),

    P("evaluates the arithmetic expression `expr` and returns its integer value. The expression "
      "contains non-negative integer literals, the operators +, - and *, parentheses and spaces; "
      "* binds tighter than + and -, and operators of equal precedence apply left to right. "
      "Do not use eval.", """
def evaluate_expression(expr: str) -> int:
    tokens = []
    i = 0
    while i < len(expr):
        ch = expr[i]
        if ch.isdigit():
            j = i
            while j < len(expr) and expr[j].isdigit():
                j += 1
            tokens.append(int(expr[i:j]))
            i = j
        else:
            if ch in "+-*()":
                tokens.append(ch)
            i += 1
    pos = 0

    def parse_sum():
        nonlocal pos
        value = parse_product()
        while pos < len(tokens) and tokens[pos] in ("+", "-"):
            op = tokens[pos]
            pos += 1
            rhs = parse_product()
            value = value + rhs if op == "+" else value - rhs
        return value

    def parse_product():
        nonlocal pos
        value = parse_atom()
        while pos < len(tokens) and tokens[pos] == "*":
            pos += 1
            value *= parse_atom()
        return value

    def parse_atom():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            value = parse_sum()
            pos += 1  # the closing ")"
            return value
        return tok

    return parse_sum()
""", [(["1 + 2"], 3), (["2 * 3 + 4"], 10), (["2 * (3 + 4)"], 14), (["10 - 2 - 3"], 5), (["((1))"], 1),
      (["100"], 100), (["2*3*4 - 5*(6-1)"], -1), (["7 - (2 - 3) * 4"], 11)]),

    P("returns the length of the longest common subsequence of the strings `a` and `b`.", """
def lcs_length(a: str, b: str) -> int:
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
            else:
                cur[j] = max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]
""", [(["abcde", "ace"], 3), (["abc", "def"], 0), (["", "a"], 0), (["AGGTAB", "GXTXAYB"], 4), (["abc", "abc"], 3)]),

    P("solves the 0/1 knapsack problem: item i has weight `weights[i]` and value `values[i]`; return "
      "the largest total value of items whose total weight is at most `capacity` (each item used "
      "at most once).", """
def knapsack(weights: list[int], values: list[int], capacity: int) -> int:
    best = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for c in range(capacity, w - 1, -1):
            best[c] = max(best[c], best[c - w] + v)
    return best[capacity]
""", [([[1, 3, 4, 5], [1, 4, 5, 7], 7], 9), ([[], [], 10], 0), ([[10], [5], 5], 0), ([[2, 3, 4], [3, 4, 5], 5], 7),
      ([[5, 4, 6, 3], [10, 40, 30, 50], 10], 90)]),

    P("returns the fewest coins from the denominations `coins` (unlimited supply of each) that add "
      "up to `amount`, or -1 if it cannot be done.", """
def coin_change(coins: list[int], amount: int) -> int:
    inf = amount + 1
    best = [0] + [inf] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
    return best[amount] if best[amount] != inf else -1
""", [([[1, 2, 5], 11], 3), ([[2], 3], -1), ([[1], 0], 0), ([[1, 3, 4], 6], 2), ([[5, 10], 3], -1),
      ([[186, 419, 83, 408], 6249], 20)]),

    P("returns the number of islands in `grid`, a list of rows of 0 (water) and 1 (land); an island "
      "is a group of land cells connected horizontally or vertically.", """
def count_islands(grid: list[list[int]]) -> int:
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    seen = [[False] * cols for _ in range(rows)]
    count = 0
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == 1 and not seen[r][c]:
                count += 1
                stack = [(r, c)]
                seen[r][c] = True
                while stack:
                    y, x = stack.pop()
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if 0 <= ny < rows and 0 <= nx < cols and grid[ny][nx] == 1 and not seen[ny][nx]:
                            seen[ny][nx] = True
                            stack.append((ny, nx))
    return count
""", [([[[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1]]], 3), ([[]], 0),
      ([[[0, 0], [0, 0]]], 0), ([[[1, 0, 1], [0, 1, 0], [1, 0, 1]]], 5), ([[[1, 1, 1], [0, 1, 0], [1, 1, 1]]], 1)]),

    P("returns the elements of the rectangular matrix `matrix` in clockwise spiral order, starting "
      "at the top-left corner.", """
def spiral_order(matrix: list[list[int]]) -> list[int]:
    out = []
    if not matrix:
        return out
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            out.append(matrix[top][c])
        for r in range(top + 1, bottom + 1):
            out.append(matrix[r][right])
        if top < bottom:
            for c in range(right - 1, left - 1, -1):
                out.append(matrix[bottom][c])
        if left < right:
            for r in range(bottom - 1, top, -1):
                out.append(matrix[r][left])
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out
""", [([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [1, 2, 3, 6, 9, 8, 7, 4, 5]),
      ([[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]], [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]),
      ([[]], []), ([[[1]]], [1]), ([[[1], [2], [3]]], [1, 2, 3]), ([[[1, 2], [3, 4]]], [1, 2, 4, 3])]),

    P("returns the number of ways to place `n` queens on an n x n chessboard so that no two queens "
      "attack each other.", """
def n_queens(n: int) -> int:
    def place(row, cols, diag1, diag2):
        if row == n:
            return 1
        total = 0
        for c in range(n):
            if c not in cols and row - c not in diag1 and row + c not in diag2:
                total += place(row + 1, cols | {c}, diag1 | {row - c}, diag2 | {row + c})
        return total
    return place(0, frozenset(), frozenset(), frozenset())
""", [([1], 1), ([2], 0), ([3], 0), ([4], 2), ([5], 10), ([6], 4), ([8], 92)]),

    P("returns all distinct permutations of the string `s`, sorted alphabetically.", """
def string_permutations(s: str) -> list[str]:
    if len(s) <= 1:
        return [s]
    out = set()
    for i, ch in enumerate(s):
        for rest in string_permutations(s[:i] + s[i + 1:]):
            out.add(ch + rest)
    return sorted(out)
""", [(["abc"], ["abc", "acb", "bac", "bca", "cab", "cba"]), (["aab"], ["aab", "aba", "baa"]), ([""], [""]),
      (["a"], ["a"]), (["ab"], ["ab", "ba"])]),

    P("returns all subsets of the list of distinct integers `nums`: each subset sorted in ascending "
      "order, and the list of subsets sorted in Python's list order (so [] comes first).", """
def subsets(nums: list[int]) -> list[list[int]]:
    nums = sorted(nums)
    out = [[]]
    for x in nums:
        out += [s + [x] for s in out]
    return sorted(out)
""", [([[1, 2, 3]], [[], [1], [1, 2], [1, 2, 3], [1, 3], [2], [2, 3], [3]]), ([[]], [[]]), ([[5]], [[], [5]]),
      ([[2, 1]], [[], [1], [1, 2], [2]])]),

    P("returns the longest palindromic substring of `s` (the one that starts first if several are "
      "equally long; \"\" for an empty string).", """
def longest_palindromic_substring(s: str) -> str:
    best = ""
    for center in range(2 * len(s) - 1):
        lo, hi = center // 2, (center + 1) // 2
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        candidate = s[lo + 1:hi]
        if len(candidate) > len(best):
            best = candidate
    return best
""", [(["babad"], "bab"), (["cbbd"], "bb"), (["a"], "a"), ([""], ""), (["forgeeksskeegfor"], "geeksskeeg"),
      (["abc"], "a"), (["xabay"], "aba")]),

    P("returns True if `s` can be split into a sequence of one or more words from `words` (words may "
      "be reused); an empty `s` gives True.", """
def word_break(s: str, words: list[str]) -> bool:
    vocab = set(words)
    ok = [True] + [False] * len(s)
    for end in range(1, len(s) + 1):
        for start in range(end):
            if ok[start] and s[start:end] in vocab:
                ok[end] = True
                break
    return ok[len(s)]
""", [(["leetcode", ["leet", "code"]], True), (["applepenapple", ["apple", "pen"]], True),
      (["catsandog", ["cats", "dog", "sand", "and", "cat"]], False), (["", ["a"]], True),
      (["aaaaaaa", ["aaaa", "aaa"]], True), (["ab", ["a"]], False)]),

    P("merges overlapping intervals: `intervals` is a list of [start, end] pairs; return the merged "
      "intervals sorted by start. Intervals that touch (one ends where the next starts) are merged.", """
def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out
""", [([[[1, 3], [2, 6], [8, 10], [15, 18]]], [[1, 6], [8, 10], [15, 18]]), ([[[1, 4], [4, 5]]], [[1, 5]]),
      ([[]], []), ([[[5, 6], [1, 2]]], [[1, 2], [5, 6]]), ([[[1, 10], [2, 3], [4, 5]]], [[1, 10]])]),

    P("returns a topological order of the nodes 0..n-1 of a directed graph whose `edges` are [u, v] "
      "pairs meaning u must come before v. Whenever several nodes could come next, take the smallest. "
      "Return [] if the graph has a cycle.", """
def topological_sort(n: int, edges: list[list[int]]) -> list[int]:
    import heapq
    indegree = [0] * n
    succ = [[] for _ in range(n)]
    for u, v in edges:
        succ[u].append(v)
        indegree[v] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in succ[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, v)
    return order if len(order) == n else []
""", [([4, [[0, 1], [0, 2], [1, 3], [2, 3]]], [0, 1, 2, 3]), ([3, [[2, 1], [1, 0]]], [2, 1, 0]),
      ([2, [[0, 1], [1, 0]]], []), ([3, []], [0, 1, 2]), ([5, [[3, 0], [4, 0], [1, 2]]], [1, 2, 3, 4, 0])]),

    P("returns the minimum number of moves from the top-left to the bottom-right cell of `grid` "
      "(rows of 0 = open, 1 = wall), moving up, down, left or right through open cells; return -1 if "
      "it is impossible (including when the start or end is a wall).", """
def shortest_path_grid(grid: list[list[int]]) -> int:
    from collections import deque
    rows, cols = len(grid), len(grid[0])
    if grid[0][0] == 1 or grid[rows - 1][cols - 1] == 1:
        return -1
    dist = {(0, 0): 0}
    queue = deque([(0, 0)])
    while queue:
        r, c = queue.popleft()
        if (r, c) == (rows - 1, cols - 1):
            return dist[(r, c)]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] == 0 and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return -1
""", [([[[0, 0, 0], [1, 1, 0], [0, 0, 0]]], 4), ([[[0, 1], [1, 0]]], -1), ([[[0]]], 0), ([[[1]]], -1),
      ([[[0, 0, 0], [0, 1, 0], [0, 0, 0]]], 4), ([[[0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0]]], 5)]),

    P("returns the shortest distances from `source` to every node 0..n-1 of an undirected graph whose "
      "`edges` are [u, v, weight] triples with non-negative weights; unreachable nodes get -1.", """
def dijkstra(n: int, edges: list[list[int]], source: int) -> list[int]:
    import heapq
    adj = [[] for _ in range(n)]
    for u, v, w in edges:
        adj[u].append((v, w))
        adj[v].append((u, w))
    dist = [-1] * n
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if dist[u] != -1:
            continue
        dist[u] = d
        for v, w in adj[u]:
            if dist[v] == -1:
                heapq.heappush(heap, (d + w, v))
    return dist
""", [([4, [[0, 1, 1], [1, 2, 2], [0, 2, 5], [2, 3, 1]], 0], [0, 1, 3, 4]), ([3, [], 0], [0, -1, -1]),
      ([2, [[0, 1, 7]], 1], [7, 0]),
      ([5, [[0, 1, 10], [0, 2, 3], [2, 1, 4], [1, 3, 2], [2, 3, 8], [3, 4, 7]], 0], [0, 7, 3, 9, 16])]),

    P("returns the length of the longest substring of `s` without repeating characters.", """
def longest_unique_substring(s: str) -> int:
    last = {}
    start = best = 0
    for i, ch in enumerate(s):
        if ch in last and last[ch] >= start:
            start = last[ch] + 1
        last[ch] = i
        best = max(best, i - start + 1)
    return best
""", [(["abcabcbb"], 3), (["bbbbb"], 1), (["pwwkew"], 3), ([""], 0), (["dvdf"], 3), (["abba"], 2)]),

    P("returns the number of ways to decode the non-empty digit string `s` where 'A' = 1, 'B' = 2, "
      "..., 'Z' = 26 (a code may not start with 0).", """
def num_decodings(s: str) -> int:
    prev, cur = 1, (1 if s[0] != "0" else 0)
    for i in range(1, len(s)):
        nxt = cur if s[i] != "0" else 0
        if s[i - 1] == "1" or (s[i - 1] == "2" and s[i] <= "6"):
            nxt += prev
        prev, cur = cur, nxt
    return cur
""", [(["12"], 2), (["226"], 3), (["06"], 0), (["0"], 0), (["11106"], 2), (["10"], 1), (["27"], 1)]),

    P("returns the largest product of a contiguous, non-empty sub-list of the non-empty list `nums`.", """
def max_product_subarray(nums: list[int]) -> int:
    best = hi = lo = nums[0]
    for x in nums[1:]:
        candidates = (x, hi * x, lo * x)
        hi, lo = max(candidates), min(candidates)
        best = max(best, hi)
    return best
""", [([[2, 3, -2, 4]], 6), ([[-2, 0, -1]], 0), ([[-2]], -2), ([[-2, 3, -4]], 24), ([[0, 2]], 2)]),

    P("returns how much rain water is trapped between the bars of an elevation map, where "
      "`heights[i]` is the height of a bar of width 1.", """
def trap_rain_water(heights: list[int]) -> int:
    left, right = 0, len(heights) - 1
    left_max = right_max = water = 0
    while left < right:
        if heights[left] < heights[right]:
            left_max = max(left_max, heights[left])
            water += left_max - heights[left]
            left += 1
        else:
            right_max = max(right_max, heights[right])
            water += right_max - heights[right]
            right -= 1
    return water
""", [([[0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1]], 6), ([[4, 2, 0, 3, 2, 5]], 9), ([[]], 0), ([[1, 2, 3]], 0),
      ([[3, 0, 3]], 3)]),

    P("returns every string of `n` pairs of correctly balanced parentheses, sorted "
      "(\"(\" sorts before \")\"); n = 0 gives [\"\"].", """
def generate_parentheses(n: int) -> list[str]:
    out = []

    def build(prefix, opened, closed):
        if len(prefix) == 2 * n:
            out.append(prefix)
            return
        if opened < n:
            build(prefix + "(", opened + 1, closed)
        if closed < opened:
            build(prefix + ")", opened, closed + 1)

    build("", 0, 0)
    return sorted(out)
""", [([1], ["()"]), ([2], ["(())", "()()"]), ([3], ["((()))", "(()())", "(())()", "()(())", "()()()"]), ([0], [""])]),

    P("returns every combination of numbers from `candidates` (distinct positive integers, each "
      "usable any number of times) that sums to `target`; each combination in ascending order, the "
      "list of combinations sorted.", """
def combination_sum(candidates: list[int], target: int) -> list[list[int]]:
    nums = sorted(candidates)
    out = []

    def search(start, remaining, chosen):
        if remaining == 0:
            out.append(list(chosen))
            return
        for i in range(start, len(nums)):
            if nums[i] > remaining:
                break
            chosen.append(nums[i])
            search(i, remaining - nums[i], chosen)
            chosen.pop()

    search(0, target, [])
    return sorted(out)
""", [([[2, 3, 6, 7], 7], [[2, 2, 3], [7]]), ([[2, 3, 5], 8], [[2, 2, 2, 2], [2, 3, 3], [3, 5]]), ([[2], 1], []),
      ([[1], 2], [[1, 1]]), ([[3, 2], 4], [[2, 2]])]),

    P("evaluates an expression in reverse Polish notation given as a list of tokens (integers and "
      "the operators +, -, *, /); division truncates toward zero.", """
def eval_rpn(tokens: list[str]) -> int:
    stack = []
    for tok in tokens:
        if tok in ("+", "-", "*", "/"):
            b = stack.pop()
            a = stack.pop()
            if tok == "+":
                stack.append(a + b)
            elif tok == "-":
                stack.append(a - b)
            elif tok == "*":
                stack.append(a * b)
            else:
                q = abs(a) // abs(b)
                stack.append(q if (a >= 0) == (b >= 0) else -q)
        else:
            stack.append(int(tok))
    return stack[-1]
""", [([["2", "1", "+", "3", "*"]], 9), ([["4", "13", "5", "/", "+"]], 6),
      ([["10", "6", "9", "3", "+", "-11", "*", "/", "*", "17", "+", "5", "+"]], 22), ([["3"]], 3),
      ([["7", "-2", "/"]], -3)]),

    P("returns the matrix product of `a` (m x k) and `b` (k x n), matrices given as lists of rows.", """
def matrix_multiply(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]
""", [([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[19, 22], [43, 50]]), ([[[1, 0], [0, 1]], [[9, 8], [7, 6]]], [[9, 8], [7, 6]]),
      ([[[1, 2, 3]], [[4], [5], [6]]], [[32]]), ([[[2]], [[3]]], [[6]]), ([[[1], [2]], [[3, 4]]], [[3, 4], [6, 8]])]),

    P("checks a partially filled Sudoku `board` given as 9 strings of 9 characters (digits 1-9 or "
      "'.' for empty) and returns True if no digit repeats within any row, column or 3x3 box.", """
def is_valid_sudoku(board: list[str]) -> bool:
    seen = set()
    for r in range(9):
        for c in range(9):
            d = board[r][c]
            if d == ".":
                continue
            keys = (("row", r, d), ("col", c, d), ("box", r // 3, c // 3, d))
            if any(k in seen for k in keys):
                return False
            seen.update(keys)
    return True
""", [([SUDOKU_OK], True), ([["83..7...."] + SUDOKU_OK[1:]], False), ([["........."] * 9], True),
      ([["11......."] + ["........."] * 8], False), ([["1........", ".1......."] + ["........."] * 7], False),
      ([["1........"] + ["........."] * 7 + ["1........"]], False)]),

    P("returns the next lexicographically greater permutation of `nums` as a new list; if `nums` is "
      "the greatest permutation, return it sorted in ascending order.", """
def next_permutation(nums: list[int]) -> list[int]:
    a = list(nums)
    i = len(a) - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i >= 0:
        j = len(a) - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
    a[i + 1:] = reversed(a[i + 1:])
    return a
""", [([[1, 2, 3]], [1, 3, 2]), ([[3, 2, 1]], [1, 2, 3]), ([[1, 1, 5]], [1, 5, 1]), ([[1]], [1]),
      ([[1, 3, 2]], [2, 1, 3]), ([[2, 3, 1]], [3, 1, 2])]),

    P("returns the area of the largest rectangle that fits inside a histogram whose bars have "
      "width 1 and heights `heights`.", """
def largest_rectangle(heights: list[int]) -> int:
    stack = []
    best = 0
    for i, h in enumerate(heights + [0]):
        start = i
        while stack and stack[-1][1] >= h:
            start, height = stack.pop()
            best = max(best, height * (i - start))
        stack.append((start, h))
    return best
""", [([[2, 1, 5, 6, 2, 3]], 10), ([[2, 4]], 4), ([[]], 0), ([[1, 1, 1, 1]], 4), ([[6, 2, 5, 4, 5, 1, 6]], 12)]),

    P("returns the number of inversions in `nums`: pairs of indices i < j with nums[i] > nums[j].", """
def count_inversions(nums: list[int]) -> int:
    def sort(a):
        if len(a) <= 1:
            return a, 0
        mid = len(a) // 2
        left, x = sort(a[:mid])
        right, y = sort(a[mid:])
        merged, count = [], x + y
        i = j = 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                count += len(left) - i
                j += 1
        return merged + left[i:] + right[j:], count
    return sort(list(nums))[1]
""", [([[2, 4, 1, 3, 5]], 3), ([[]], 0), ([[1, 2, 3]], 0), ([[3, 2, 1]], 3), ([[5, 4, 3, 2, 1]], 10), ([[1, 1, 1]], 0)]),

    P("returns True if the pattern `p` matches the whole string `s`, where '?' matches any single "
      "character and '*' matches any sequence of characters (including none).", """
def wildcard_match(s: str, p: str) -> bool:
    prev = [True] + [False] * len(s)
    for pc in p:
        cur = [prev[0] and pc == "*"] + [False] * len(s)
        for j in range(1, len(s) + 1):
            if pc == "*":
                cur[j] = prev[j] or cur[j - 1]
            else:
                cur[j] = prev[j - 1] and (pc == "?" or pc == s[j - 1])
        prev = cur
    return prev[len(s)]
""", [(["aa", "a"], False), (["aa", "*"], True), (["cb", "?a"], False), (["adceb", "*a*b"], True),
      (["acdcb", "a*c?b"], False), (["", "*"], True), (["", ""], True), (["abc", "a?c"], True)]),

    P('spells out the integer `n` (0 to 999999) in lower-case English words separated by single '
      'spaces, without "and" or hyphens, e.g. 123456 gives "one hundred twenty three thousand four '
      'hundred fifty six" and 0 gives "zero".', """
def number_to_words(n: int) -> str:
    ones = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
            "eighteen", "nineteen"]
    tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    def below_thousand(k):
        words = []
        if k >= 100:
            words += [ones[k // 100], "hundred"]
            k %= 100
        if k >= 20:
            words.append(tens[k // 10])
            k %= 10
        if k:
            words.append(ones[k])
        return words

    if n == 0:
        return "zero"
    words = []
    if n >= 1000:
        words += below_thousand(n // 1000) + ["thousand"]
    words += below_thousand(n % 1000)
    return " ".join(words)
""", [([0], "zero"), ([7], "seven"), ([13], "thirteen"), ([21], "twenty one"), ([100], "one hundred"),
      ([115], "one hundred fifteen"), ([1005], "one thousand five"),
      ([123456], "one hundred twenty three thousand four hundred fifty six"), ([90000], "ninety thousand"),
      ([999999], "nine hundred ninety nine thousand nine hundred ninety nine")]),

    P("returns the smallest sum of the numbers along a path from the top-left to the bottom-right "
      "cell of the non-empty grid `grid`, moving only right or down.", """
def min_path_sum(grid: list[list[int]]) -> int:
    rows, cols = len(grid), len(grid[0])
    best = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if r == 0 and c == 0:
                best[r][c] = grid[r][c]
            elif r == 0:
                best[r][c] = best[r][c - 1] + grid[r][c]
            elif c == 0:
                best[r][c] = best[r - 1][c] + grid[r][c]
            else:
                best[r][c] = min(best[r - 1][c], best[r][c - 1]) + grid[r][c]
    return best[-1][-1]
""", [([[[1, 3, 1], [1, 5, 1], [4, 2, 1]]], 7), ([[[1, 2, 3], [4, 5, 6]]], 12), ([[[5]]], 5), ([[[1], [2], [3]]], 6)]),

    P("returns True if the non-empty list of positive integers `nums` can be split into two groups "
      "with equal sums.", """
def can_partition(nums: list[int]) -> bool:
    total = sum(nums)
    if total % 2:
        return False
    reachable = {0}
    for x in nums:
        reachable |= {r + x for r in reachable}
    return total // 2 in reachable
""", [([[1, 5, 11, 5]], True), ([[1, 2, 3, 5]], False), ([[2, 2]], True), ([[1]], False), ([[3, 3, 3, 4, 5]], True)]),

    P("simplifies the absolute Unix path `path`: collapse repeated slashes, drop \".\" parts, let "
      "\"..\" remove the previous directory (never going above the root) and drop the trailing slash.", """
def simplify_path(path: str) -> str:
    parts = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)
""", [(["/home/"], "/home"), (["/../"], "/"), (["/home//foo/"], "/home/foo"), (["/a/./b/../../c/"], "/c"),
      (["/a/../../b/../c//.//"], "/c"), (["/..."], "/...")]),

    P("returns the minimum number of meeting rooms needed to hold all meetings, each given as "
      "[start, end]; a meeting ending at time t frees its room for one starting at t.", """
def min_meeting_rooms(intervals: list[list[int]]) -> int:
    events = []
    for start, end in intervals:
        events.append((start, 1))
        events.append((end, -1))
    rooms = best = 0
    for _, delta in sorted(events):
        rooms += delta
        best = max(best, rooms)
    return best
""", [([[[0, 30], [5, 10], [15, 20]]], 2), ([[[7, 10], [2, 4]]], 1), ([[]], 0), ([[[1, 5], [5, 10]]], 1),
      ([[[1, 10], [2, 9], [3, 8]]], 3)]),
]

TIERS = {"easy": EASY, "medium": MEDIUM, "hard": HARD}


def _same(a, b) -> bool:
    """Equal by value and by JSON type (True is not 1), as the execution judge compares."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def row(p: dict, pid: str, tier: str, split: str, source: str) -> dict:
    """One problem's row: its tests' outputs computed by running the reference (and checked against
    the hand values), its prompt written from the signature, the task and the first case."""
    ref = p["ref"].strip("\n") + "\n"
    sig_match = re.search(r"^def (\w+)\(.*\).*:$", ref, re.M)
    assert sig_match, f"{pid}: reference has no def line"
    signature, name = sig_match.group(0), sig_match.group(1)
    namespace: dict = {}
    exec(compile(ref, f"<{name}>", "exec"), namespace)
    fn = namespace[name]
    tests = []
    for args, expected in p["cases"]:
        got = fn(*copy.deepcopy(args))
        assert json.loads(json.dumps(got)) == got and _same(json.loads(json.dumps(got)), got), \
            f"{name}{args!r}: output {got!r} does not survive a JSON round trip"
        if expected is not ...:
            assert _same(got, expected), f"{name}{args!r}: reference gives {got!r}, hand value {expected!r}"
        tests.append({"input": args, "output": got})
    assert len(tests) >= 3, f"{name}: needs at least 3 tests"
    first = tests[0]
    call = f"{name}({', '.join(repr(a) for a in first['input'])})"
    prompt = (f"Write a Python function `{signature}` that {p['task']} "
              f"For example, `{call}` returns `{first['output']!r}`. {INSTRUCTION}")
    return {
        "id": pid,
        "prompt": prompt,
        "entry_point": name,
        "difficulty": tier,
        "split": split,
        "reference": ref,
        "tests": tests,
        "test_code": None,
        "signature": signature,
        "meta": {"source": source},
        "language": "python",
        "context": None,  # the prompt shows only the signature: nothing is in scope but builtins
    }


def build() -> list[dict]:
    rows = [row(p, f"py-{tier}-{k:03d}", tier, "heldout" if k % 5 == 0 else "train", "rlaif-builtin")
            for tier, problems in TIERS.items() for k, p in enumerate(problems, start=1)]
    ids = [r["id"] for r in rows]
    names = [r["entry_point"] for r in rows]
    assert len(set(ids)) == len(ids) and len(set(names)) == len(names), "duplicate id or entry point"
    return rows


def build_bank() -> list[dict]:
    """The problem bank (bank_*.py, checked by bank_check.py): ids py-<part>-NNN in each part's
    order, split and difficulty as each problem states them."""
    import runpy
    rows = []
    for part in sorted(OUT.parent.glob("bank_*.py")):
        if part.name == "bank_check.py":
            continue
        area = part.stem.removeprefix("bank_")
        for k, p in enumerate(runpy.run_path(str(part))["PROBLEMS"], start=1):
            rows.append(row(p, f"py-{area}-{k:03d}", p["difficulty"], p["split"], "rlaif-bank"))
    names = [r["entry_point"] for r in rows + build()]
    assert len(set(names)) == len(names), "duplicate entry point between the bank and problems.jsonl"
    return rows


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="Build problems.jsonl and bank.jsonl, the Python problem sets, from the "
                                 "literals in this file and the bank_*.py modules (expected outputs come from "
                                 "running each reference).")
    ap.add_argument("--check", action="store_true", help="write nothing; fail if either file is out of date")
    ap.add_argument("--out", type=Path, default=OUT.parent, help="the folder to write both files to "
                    "(default: data/problems, the shipped sets)")
    a = ap.parse_args(argv)
    stale = False
    for name, rows in ((OUT.name, build()), (BANK.name, build_bank())):
        text, out = render(rows), a.out / name
        if a.check:
            if not out.exists() or out.read_text(encoding="utf-8") != text:
                print(f"{out} is out of date: run python {Path(__file__).as_posix()}", file=sys.stderr)
                stale = True
            else:
                print(f"{out} is up to date")
        else:
            out.write_text(text, encoding="utf-8")
            print(f"wrote {out}: {text.count(chr(10))} problems")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
