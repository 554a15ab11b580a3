"""Numbers problems of the problem bank (checked by data/problems/bank_check.py)."""
PROBLEMS = [
    dict(split="train", difficulty="easy", task="returns how many decimal digits the integer `n` has, ignoring a minus sign (0 has one digit).", ref="""
def count_digits(n: int) -> int:
    return len(str(abs(n)))
""", cases=[([12345], 5), ([0], 1), ([-907], 3), ([9], 1), ([10], 2), ([1000000], 7)]),
    dict(split="train", difficulty="medium", task="makes change for `cents` cents by repeatedly taking the largest coin that still fits, among quarters (25 cents), dimes (10), nickels (5) and pennies (1), and returns how many of each were used as the list `[quarters, dimes, nickels, pennies]`.", ref="""
def make_change(cents: int) -> list[int]:
    result = []
    for coin in (25, 10, 5, 1):
        result.append(cents // coin)
        cents %= coin
    return result
""", cases=[([68], [2, 1, 1, 3]), ([0], [0, 0, 0, 0]), ([25], [1, 0, 0, 0]), ([24], [0, 2, 0, 4]), ([30], [1, 0, 1, 0]), ([99], [3, 2, 0, 4]), ([9], [0, 0, 1, 4]), ([10], [0, 1, 0, 0]), ([26], [1, 0, 0, 1]), ([11], [0, 1, 0, 1]), ([6], [0, 0, 1, 1])]),
    dict(split="train", difficulty="easy", task="converts the temperature `c` from degrees Celsius to degrees Fahrenheit (F = C * 9 / 5 + 32) and returns it rounded to the nearest integer.", ref="""
def celsius_to_fahrenheit(c: int) -> int:
    return round(c * 9 / 5 + 32)
""", cases=[([25], 77), ([100], 212), ([0], 32), ([-40], -40), ([37], 99), ([21], 70), ([-3], 27), ([1], 34)]),
    dict(split="train", difficulty="easy", task="returns the integer whose decimal digits are those of `n` in reverse order, keeping the sign of `n` (leading zeros of the result are dropped, so 120 gives 21).", ref="""
def reverse_digits(n: int) -> int:
    s = str(n)
    if n < 0:
        return -int(s[1:][::-1])
    return int(s[::-1])
""", cases=[([123], 321), ([120], 21), ([-45], -54), ([0], 0), ([7], 7), ([-100], -1), ([-1], -1)]),
    dict(split="train", difficulty="medium", task="returns the balance in cents after `years` years when `principal` cents earn `rate` percent interest per year: at the end of each year the interest on the current balance, rounded down to a whole cent, is added to it.", ref="""
def compound_interest(principal: int, rate: int, years: int) -> int:
    for _ in range(years):
        principal += principal * rate // 100
    return principal
""", cases=[([10000, 5, 3], 11576), ([1000, 10, 0], 1000), ([1000, 0, 5], 1000), ([99, 1, 1], 99), ([100, 1, 2], 102), ([12345, 7, 2], 14133), ([500, 100, 3], 4000)]),
    dict(split="train", difficulty="medium", task="returns the day number within the year (1 for January 1st) of the date given by `year`, `month` and `day`, where February has 29 days in leap years (years divisible by 4 but not by 100, or divisible by 400).", ref="""
def day_of_year(year: int, month: int, day: int) -> int:
    from datetime import date
    return (date(year, month, day) - date(year, 1, 1)).days + 1
""", cases=[([2024, 3, 1], 61), ([2023, 3, 1], 60), ([2023, 1, 1], 1), ([2023, 12, 31], 365), ([2024, 12, 31], 366), ([1900, 3, 1], 60), ([2000, 3, 1], 61), ([2021, 2, 14], 45)]),
    dict(split="train", difficulty="easy", task="returns all positive divisors of the positive integer `n` in increasing order.", ref="""
def list_divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]
""", cases=[([12], [1, 2, 3, 4, 6, 12]), ([1], [1]), ([7], [1, 7]), ([16], [1, 2, 4, 8, 16]), ([30], [1, 2, 3, 5, 6, 10, 15, 30])],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="hard", task="writes the fraction `num`/`den` (0 < `num` < `den`) as a sum of distinct unit fractions by the greedy method: repeatedly subtract the largest unit fraction 1/x that is not larger than what remains, until nothing remains; it returns the list of the denominators x in the order they were found.", ref="""
def egyptian_fraction(num: int, den: int) -> list[int]:
    out = []
    while num:
        x = -(-den // num)
        out.append(x)
        num, den = num * x - den, den * x
    return out
""", cases=[([4, 13], [4, 18, 468]), ([2, 3], [2, 6]), ([1, 5], [5]), ([3, 4], [2, 4]), ([5, 6], [2, 3]), ([7, 15], [3, 8, 120]), ([6, 7], [2, 3, 42])]),
    dict(split="train", difficulty="easy", task="returns True if the integer `n` is a power of two (1, 2, 4, 8, ...) and False otherwise (zero and negative numbers are not powers of two).", ref="""
def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
""", cases=[([16], True), ([1], True), ([0], False), ([-8], False), ([6], False), ([1024], True), ([12], False), ([2], True), ([3], False)]),
    dict(split="train", difficulty="easy", task="returns True if the positive integers `a` and `b` have no common divisor greater than 1, and False otherwise.", ref="""
def is_coprime(a: int, b: int) -> bool:
    import math
    return math.gcd(a, b) == 1
""", cases=[([8, 15], True), ([12, 18], False), ([1, 1], True), ([7, 7], False), ([1, 10], True), ([14, 21], False)]),
    dict(split="train", difficulty="medium", task='describes a size of `n` bytes (non-negative) as a whole number and a unit, like "3 KB": it uses the largest of the units B, KB, MB and GB (each 1024 times the one before) in which the size is at least 1, rounds down, and never goes beyond GB.', ref="""
def human_bytes(n: int) -> str:
    units = ["B", "KB", "MB", "GB"]
    i = 0
    while n >= 1024 and i < 3:
        n //= 1024
        i += 1
    return f"{n} {units[i]}"
""", cases=[([3500], "3 KB"), ([0], "0 B"), ([1023], "1023 B"), ([1024], "1 KB"), ([1048576], "1 MB"), ([5000000000], "4 GB"), ([1099511627776], "1024 GB"), ([2047], "1 KB"), ([1048575], "1023 KB")]),
    dict(split="train", difficulty="medium", task="returns the area of the overlap of the axis-aligned rectangles `a` and `b`, each given as `[x1, y1, x2, y2]` with (x1, y1) its lower-left and (x2, y2) its upper-right corner; the area is 0 if they do not overlap or only touch.", ref="""
def rect_overlap_area(a: list[int], b: list[int]) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0)
""", cases=[([[0, 0, 4, 4], [2, 2, 6, 6]], 4), ([[0, 0, 2, 2], [2, 0, 4, 2]], 0), ([[0, 0, 10, 10], [2, 3, 5, 7]], 12), ([[0, 0, 1, 1], [5, 5, 6, 6]], 0), ([[-3, -3, 3, 3], [-1, -5, 1, 5]], 12), ([[0, 0, 3, 5], [1, -2, 10, 2]], 4), ([[1, 1, 4, 2], [0, 0, 5, 5]], 3), ([[0, 0, 2, 2], [5, 0, 7, 2]], 0), ([[0, 0, 2, 2], [0, 5, 2, 7]], 0), ([[1, 4, 6, 9], [3, 0, 8, 5]], 3), ([[3, 0, 8, 5], [1, 4, 6, 9]], 3)]),
    dict(split="train", difficulty="easy", task="returns the smallest power of two (1, 2, 4, 8, ...) that is greater than or equal to the positive integer `n`.", ref="""
def next_power_of_two(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p
""", cases=[([5], 8), ([1], 1), ([8], 8), ([9], 16), ([2], 2), ([100], 128), ([3], 4)]),
    dict(split="train", difficulty="medium", task="returns how many points with integer coordinates (x, y) lie inside or on the circle of radius `r` (a non-negative integer) centred at the origin, i.e. satisfy x*x + y*y <= r*r.", ref="""
def lattice_points_in_circle(r: int) -> int:
    return sum(1 for x in range(-r, r + 1) for y in range(-r, r + 1) if x * x + y * y <= r * r)
""", cases=[([2], 13), ([0], 1), ([1], 5), ([3], 29), ([5], 81)],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns bit number `i` of the non-negative integer `n` as 0 or 1, where bit 0 is the least significant bit.", ref="""
def get_bit(n: int, i: int) -> int:
    return (n >> i) & 1
""", cases=[([5, 2], 1), ([5, 0], 1), ([5, 1], 0), ([8, 3], 1), ([8, 4], 0), ([0, 0], 0), ([255, 7], 1), ([6, 0], 0)]),
    dict(split="train", difficulty="easy", task="returns the Gray code of the non-negative integer `n`, that is `n` XOR (`n` shifted right by one bit).", ref="""
def gray_code(n: int) -> int:
    return n ^ (n >> 1)
""", cases=[([5], 7), ([0], 0), ([1], 1), ([2], 3), ([3], 2), ([4], 6), ([10], 15), ([7], 4)]),
    dict(split="train", difficulty="easy", task="returns True if the binary representation of the non-negative integer `n`, written without leading zeros, reads the same forwards and backwards, and False otherwise.", ref="""
def is_binary_palindrome(n: int) -> bool:
    b = bin(n)[2:]
    return b == b[::-1]
""", cases=[([9], True), ([0], True), ([1], True), ([2], False), ([5], True), ([6], False), ([10], False), ([15], True), ([4], False)]),
    dict(split="train", difficulty="hard", task='returns the integer `n` in balanced ternary: base 3 with the digit values 1, 0 and -1, written as "+", "0" and "-", most significant digit first and without leading zeros (0 gives "0"); for example 8 = 9 - 1 is "+0-".', ref="""
def balanced_ternary(n: int) -> str:
    if n == 0:
        return "0"
    out = ""
    while n:
        r = n % 3
        if r == 2:
            r = -1
        out = "0+-"[r] + out
        n = (n - r) // 3
    return out
""", cases=[([5], "+--"), ([0], "0"), ([1], "+"), ([-1], "-"), ([2], "+-"), ([3], "+0"), ([-5], "-++"), ([8], "+0-"), ([13], "+++")]),
    dict(split="train", difficulty="medium", task="returns twice the area of the simple polygon whose corners `points` (a list of `[x, y]` integer pairs, at least three) are listed in order along its boundary, clockwise or counter-clockwise; twice the area is always an integer.", ref="""
def polygon_double_area(points: list[list[int]]) -> int:
    s = 0
    for i in range(len(points)):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % len(points)]
        s += x1 * y2 - x2 * y1
    return abs(s)
""", cases=[([[[0, 0], [4, 0], [4, 3]]], 12), ([[[0, 0], [0, 2], [2, 2], [2, 0]]], 8), ([[[1, 1], [3, 1], [2, 4]]], 6), ([[[0, 0], [5, 0], [5, 5], [0, 5]]], 50), ([[[0, 0], [4, 0], [4, 4], [2, 2], [0, 4]]], 24)],
         survivors=["line 5: op -> Sub", "line 6: op -> Sub"]),
    dict(split="train", difficulty="easy", task='converts the colour `color`, written as "#" followed by six hexadecimal digits (upper or lower case, two for each of red, green and blue), into the list `[red, green, blue]` of integers from 0 to 255.', ref="""
def hex_to_rgb(color: str) -> list[int]:
    return [int(color[i:i + 2], 16) for i in (1, 3, 5)]
""", cases=[(["#FF8000"], [255, 128, 0]), (["#000000"], [0, 0, 0]), (["#10abcd"], [16, 171, 205]), (["#0A0B0C"], [10, 11, 12]), (["#ffffff"], [255, 255, 255]), (["#123456"], [18, 52, 86])]),
    dict(split="train", difficulty="easy", task="returns the price `price` (in cents) after a discount of `percent` percent (0 to 100), rounded down to a whole cent.", ref="""
def discounted_price(price: int, percent: int) -> int:
    return price * (100 - percent) // 100
""", cases=[([1999, 15], 1699), ([1000, 0], 1000), ([1000, 100], 0), ([250, 10], 225), ([999, 50], 499), ([1, 99], 0), ([12345, 33], 8271)]),
    dict(split="train", difficulty="hard", task="returns the number of ways to write the non-negative integer `n` as a sum of positive integers when the order of the terms does not matter (4 = 4 = 3+1 = 2+2 = 2+1+1 = 1+1+1+1 gives 5; 0 gives 1).", ref="""
def partition_count(n: int) -> int:
    ways = [1] + [0] * n
    for part in range(1, n + 1):
        for total in range(part, n + 1):
            ways[total] += ways[total - part]
    return ways[n]
""", cases=[([4], 5), ([0], 1), ([1], 1), ([2], 2), ([3], 3), ([5], 7), ([10], 42), ([7], 15)],
         survivors=["line 3: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns the century of the positive year `year`: years 1 to 100 are the 1st century, 101 to 200 the 2nd, and so on (so 2000 is in the 20th century).", ref="""
def century(year: int) -> int:
    return (year + 99) // 100
""", cases=[([1999], 20), ([2000], 20), ([2001], 21), ([1], 1), ([100], 1), ([101], 2), ([1900], 19)]),
    dict(split="train", difficulty="medium", task="returns how many zeros the decimal representation of the factorial of the non-negative integer `n` ends with.", ref="""
def factorial_trailing_zeros(n: int) -> int:
    count = 0
    while n:
        n //= 5
        count += n
    return count
""", cases=[([10], 2), ([0], 0), ([4], 0), ([5], 1), ([25], 6), ([24], 4), ([100], 24), ([125], 31), ([30], 7)]),
    dict(split="train", difficulty="medium", task='returns the non-negative integer `n` written in base `base` (2 to 16), using the digits 0-9 followed by the upper-case letters A-F for the values 10 to 15; 0 gives "0".', ref="""
def to_base(n: int, base: int) -> str:
    digits = "0123456789ABCDEF"
    out = ""
    while n > 0:
        out = digits[n % base] + out
        n //= base
    return out or "0"
""", cases=[([255, 16], "FF"), ([0, 2], "0"), ([10, 2], "1010"), ([8, 8], "10"), ([100, 7], "202"), ([35, 16], "23"), ([1, 10], "1"), ([12345, 10], "12345"), ([15, 16], "F")]),
    dict(split="train", difficulty="easy", task='returns the number of days from the date `start` to the date `end`, both written as "YYYY-MM-DD" (negative if `end` comes before `start`).', ref="""
def days_between(start: str, end: str) -> int:
    from datetime import date
    return (date.fromisoformat(end) - date.fromisoformat(start)).days
""", cases=[(["2024-01-01", "2024-03-01"], 60), (["2023-01-01", "2023-03-01"], 59), (["2020-05-05", "2020-05-05"], 0), (["2021-12-31", "2022-01-01"], 1), (["2022-01-10", "2022-01-01"], -9), (["2000-01-01", "2001-01-01"], 366)]),
    dict(split="train", difficulty="easy", task='returns the English name of the day of the week ("Monday" to "Sunday") of the date `d`, written as "YYYY-MM-DD".', ref="""
def weekday_name(d: str) -> str:
    from datetime import date
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    return names[date.fromisoformat(d).weekday()]
""", cases=[(["2024-01-01"], "Monday"), (["2000-01-01"], "Saturday"), (["1999-12-31"], "Friday"), (["2024-02-29"], "Thursday"), (["2021-07-04"], "Sunday"), (["2022-03-15"], "Tuesday"), (["2023-11-22"], "Wednesday")]),
    dict(split="train", difficulty="medium", task="returns the length of the longest run of consecutive 1 bits in the binary representation of the non-negative integer `n` (0 for 0).", ref="""
def longest_run_of_ones(n: int) -> int:
    return max(len(run) for run in bin(n)[2:].split("0"))
""", cases=[([13], 2), ([0], 0), ([1], 1), ([7], 3), ([8], 1), ([239], 4), ([1023], 10), ([10], 1)]),
    dict(split="train", difficulty="easy", task="returns the Manhattan distance between the points (`x1`, `y1`) and (`x2`, `y2`): the absolute difference of the x coordinates plus the absolute difference of the y coordinates.", ref="""
def manhattan_distance(x1: int, y1: int, x2: int, y2: int) -> int:
    return abs(x1 - x2) + abs(y1 - y2)
""", cases=[([1, 2, 4, 6], 7), ([0, 0, 0, 0], 0), ([-1, -1, 1, 1], 4), ([5, 0, 2, 0], 3), ([0, 3, 0, -4], 7), ([3, -2, -3, 5], 13)]),
    dict(split="train", difficulty="medium", task="returns the smallest integer greater than the positive integer `n` that has the same number of 1 bits in its binary representation as `n`.", ref="""
def next_same_bit_count(n: int) -> int:
    target = bin(n).count("1")
    m = n + 1
    while bin(m).count("1") != target:
        m += 1
    return m
""", cases=[([6], 9), ([1], 2), ([2], 4), ([3], 5), ([7], 11), ([12], 17), ([5], 6), ([8], 16), ([23], 27)]),
    dict(split="train", difficulty="easy", task="returns True if the point (`x`, `y`) lies inside or on the border of the axis-aligned rectangle whose lower-left corner is (`left`, `bottom`) and whose upper-right corner is (`right`, `top`), and False otherwise.", ref="""
def point_in_rectangle(x: int, y: int, left: int, bottom: int, right: int, top: int) -> bool:
    return left <= x <= right and bottom <= y <= top
""", cases=[([2, 3, 0, 0, 5, 5], True), ([0, 2, 0, 0, 5, 5], True), ([5, 2, 0, 0, 5, 5], True), ([2, 0, 0, 0, 5, 5], True), ([2, 5, 0, 0, 5, 5], True), ([-1, 2, 0, 0, 5, 5], False), ([6, 2, 0, 0, 5, 5], False), ([2, -1, 0, 0, 5, 5], False), ([2, 6, 0, 0, 5, 5], False)]),
    dict(split="train", difficulty="medium", task="returns the smallest prime number strictly greater than the integer `n` (which may be zero or negative).", ref="""
def next_prime(n: int) -> int:
    import math
    n += 1
    while n < 2 or any(n % d == 0 for d in range(2, math.isqrt(n) + 1)):
        n += 1
    return n
""", cases=[([7], 11), ([0], 2), ([1], 2), ([2], 3), ([3], 5), ([-10], 2), ([13], 17), ([24], 29), ([89], 97), ([8], 11)]),
    dict(split="train", difficulty="easy", task="returns True if the positive side lengths `a`, `b` and `c`, given in any order, form a right triangle (the squares of the two shorter sides add up to the square of the longest), and False otherwise.", ref="""
def is_right_triangle(a: int, b: int, c: int) -> bool:
    x, y, z = sorted([a, b, c])
    return x * x + y * y == z * z
""", cases=[([3, 4, 5], True), ([5, 3, 4], True), ([13, 5, 12], True), ([1, 1, 1], False), ([2, 3, 4], False), ([6, 8, 10], True), ([1, 2, 3], False)]),
    dict(split="train", difficulty="easy", task="returns True if the three points (`x1`, `y1`), (`x2`, `y2`) and (`x3`, `y3`) lie on one straight line (also when some of them are the same point), and False otherwise.", ref="""
def are_collinear(x1: int, y1: int, x2: int, y2: int, x3: int, y3: int) -> bool:
    return (x2 - x1) * (y3 - y1) == (y2 - y1) * (x3 - x1)
""", cases=[([0, 0, 1, 1, 2, 2], True), ([0, 0, 1, 1, 2, 3], False), ([1, 2, 3, 4, 5, 6], True), ([0, 0, 0, 5, 0, -3], True), ([1, 1, 1, 1, 4, 7], True), ([0, 0, 2, 1, 4, 3], False), ([2, 1, 4, 2, 8, 4], True), ([1, 0, 0, 1, 3, 5], False)]),
    dict(split="train", difficulty="hard", task='returns the spreadsheet column name of the positive integer `n`: 1 is "A", 26 is "Z", 27 is "AA", 28 is "AB", 52 is "AZ", 53 is "BA", 702 is "ZZ" and 703 is "AAA".', ref="""
def excel_column(n: int) -> str:
    name = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        name = chr(ord("A") + r) + name
    return name
""", cases=[([28], "AB"), ([1], "A"), ([26], "Z"), ([27], "AA"), ([52], "AZ"), ([53], "BA"), ([702], "ZZ"), ([703], "AAA"), ([18278], "ZZZ")]),
    dict(split="train", difficulty="medium", task="returns how many of the integers from 1 to the positive integer `n` have no common divisor greater than 1 with `n` (1 counts, and for `n` = 1 the answer is 1).", ref="""
def euler_phi(n: int) -> int:
    import math
    return sum(1 for k in range(1, n + 1) if math.gcd(k, n) == 1)
""", cases=[([9], 6), ([1], 1), ([2], 1), ([10], 4), ([12], 4), ([13], 12), ([36], 12)]),
    dict(split="train", difficulty="medium", task="returns True if the positive integer `n` is the product of exactly two prime numbers, which may be equal (like 6, 9 or 15), and False otherwise.", ref="""
def is_semiprime(n: int) -> bool:
    count = 0
    d = 2
    while d * d <= n:
        while n % d == 0:
            n //= d
            count += 1
        d += 1
    if n > 1:
        count += 1
    return count == 2
""", cases=[([15], True), ([9], True), ([4], True), ([1], False), ([2], False), ([8], False), ([12], False), ([49], True), ([35], True), ([30], False), ([97], False), ([6], True), ([25], True)],
         survivors=["line 9: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns how many square tiles of side `tile` are needed to cover a `width` by `height` rectangle, laid in a grid starting from one corner: each row and each column needs its length divided by `tile`, rounded up (cut-off pieces are thrown away).", ref="""
def tiles_needed(width: int, height: int, tile: int) -> int:
    return -(-width // tile) * -(-height // tile)
""", cases=[([10, 7, 3], 12), ([6, 6, 3], 4), ([1, 1, 5], 1), ([9, 10, 3], 12), ([5, 5, 1], 25), ([7, 2, 7], 1)]),
    dict(split="train", difficulty="easy", task="rounds the non-negative integer `n` to the nearest multiple of the positive integer `m`; when `n` lies exactly halfway between two multiples, it rounds up.", ref="""
def round_to_multiple(n: int, m: int) -> int:
    return (n + m // 2) // m * m
""", cases=[([37, 10], 40), ([34, 10], 30), ([35, 10], 40), ([0, 5], 0), ([7, 5], 5), ([8, 5], 10), ([12, 12], 12), ([17, 1], 17), ([149, 100], 100), ([150, 100], 200), ([15, 10], 20)]),
    dict(split="train", difficulty="easy", task="returns `a` divided by `b` (`b` is not zero) as an integer, rounding toward zero instead of down as Python's `//` does (so -7 divided by 2 gives -3).", ref="""
def divide_toward_zero(a: int, b: int) -> int:
    return int(a / b)
""", cases=[([-7, 2], -3), ([7, 2], 3), ([7, -2], -3), ([-7, -2], 3), ([6, 3], 2), ([0, 5], 0), ([1, 3], 0), ([-1, 3], 0), ([-9, 4], -2)]),
    dict(split="train", difficulty="medium", task="returns `[p, q]`, two prime numbers with `p` <= `q` and `p + q == n`, for the even integer `n` >= 4; among all such pairs it returns the one with the smallest `p`.", ref="""
def goldbach_pair(n: int) -> list[int]:
    import math

    def is_prime(k):
        return all(k % d for d in range(2, math.isqrt(k) + 1))

    for p in range(2, n):
        if is_prime(p) and is_prime(n - p):
            return [p, n - p]
""", cases=[([28], [5, 23]), ([4], [2, 2]), ([6], [3, 3]), ([8], [3, 5]), ([10], [3, 7]), ([100], [3, 97]), ([98], [19, 79]), ([12], [5, 7]), ([50], [3, 47])]),
    dict(split="train", difficulty="easy", task="returns the largest number that can be formed by rearranging the decimal digits of the non-negative integer `n`.", ref="""
def largest_rearrangement(n: int) -> int:
    return int("".join(sorted(str(n), reverse=True)))
""", cases=[([2736], 7632), ([0], 0), ([5], 5), ([1020], 2100), ([999], 999), ([12345], 54321)]),
    dict(split="train", difficulty="easy", task="returns what percentage the non-negative integer `part` is of the positive integer `whole`, rounded to the nearest whole percent, with an exact half rounded up (so 1 of 8, which is 12.5%, gives 13).", ref="""
def percent_of(part: int, whole: int) -> int:
    return (200 * part + whole) // (2 * whole)
""", cases=[([45, 60], 75), ([1, 8], 13), ([1, 3], 33), ([2, 3], 67), ([0, 7], 0), ([50, 50], 100), ([3, 2], 150), ([1, 200], 1), ([1, 201], 0), ([5, 8], 63)]),
    dict(split="train", difficulty="medium", task="returns True if the non-negative integer `n` can be written as `a*a + b*b` with non-negative integers `a` and `b` (like 5 = 1 + 4, or 9 = 0 + 9), and False otherwise.", ref="""
def sum_of_two_squares(n: int) -> bool:
    import math
    for a in range(math.isqrt(n) + 1):
        b = math.isqrt(n - a * a)
        if b * b == n - a * a:
            return True
    return False
""", cases=[([5], True), ([0], True), ([1], True), ([2], True), ([3], False), ([9], True), ([21], False), ([25], True), ([50], True), ([7], False), ([6], False), ([13], True)]),
    dict(split="train", difficulty="hard", task="returns the Farey sequence of order `n` (`n` >= 1): every fraction `[p, q]` in lowest terms with 0 <= p <= q <= n, sorted by the value p / q, so it runs from [0, 1] to [1, 1].", ref="""
def farey_sequence(n: int) -> list[list[int]]:
    import math
    fracs = [[p, q] for q in range(1, n + 1) for p in range(q + 1) if math.gcd(p, q) == 1]
    return sorted(fracs, key=lambda f: f[0] / f[1])
""", cases=[([3], [[0, 1], [1, 3], [1, 2], [2, 3], [1, 1]]), ([1], [[0, 1], [1, 1]]), ([2], [[0, 1], [1, 2], [1, 1]]), ([4], [[0, 1], [1, 4], [1, 3], [1, 2], [2, 3], [3, 4], [1, 1]]), ([5], [[0, 1], [1, 5], [1, 4], [1, 3], [2, 5], [1, 2], [3, 5], [2, 3], [3, 4], [4, 5], [1, 1]])],
         survivors=["line 3: value -> 0"]),
    dict(split="train", difficulty="easy", task="moves the first decimal digit of the positive integer `n` to the end and returns the resulting number (leading zeros are dropped, so 102 gives 21).", ref="""
def rotate_digits_left(n: int) -> int:
    s = str(n)
    return int(s[1:] + s[0])
""", cases=[([1234], 2341), ([102], 21), ([7], 7), ([90], 9), ([55], 55), ([100], 1), ([3021], 213)]),
    dict(split="train", difficulty="easy", task="returns True if the positive integer `n` is divisible by the sum of its decimal digits, and False otherwise.", ref="""
def is_harshad(n: int) -> bool:
    return n % sum(int(d) for d in str(n)) == 0
""", cases=[([18], True), ([19], False), ([1], True), ([10], True), ([11], False), ([21], True), ([13], False), ([100], True), ([99], False)]),
    dict(split="train", difficulty="medium", task="returns True if the non-negative integer `n` is a triangular number, i.e. equal to 1 + 2 + ... + k for some k >= 0 (0, 1, 3, 6, 10, 15, ...), and False otherwise.", ref="""
def is_triangular(n: int) -> bool:
    total, k = 0, 0
    while total < n:
        k += 1
        total += k
    return total == n
""", cases=[([10], True), ([0], True), ([1], True), ([2], False), ([3], True), ([4], False), ([6], True), ([7], False), ([55], True), ([54], False), ([56], False)],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="medium", task="returns every triple `[a, b, c]` of positive integers with `a < b < c <= limit` and `a*a + b*b == c*c`, sorted by `a` and then by `b`.", ref="""
def pythagorean_triples(limit: int) -> list[list[int]]:
    import math
    res = []
    for a in range(1, limit):
        for b in range(a + 1, limit):
            c = math.isqrt(a * a + b * b)
            if c * c == a * a + b * b and c <= limit:
                res.append([a, b, c])
    return res
""", cases=[([13], [[3, 4, 5], [5, 12, 13], [6, 8, 10]]), ([4], []), ([5], [[3, 4, 5]]), ([10], [[3, 4, 5], [6, 8, 10]]), ([20], [[3, 4, 5], [5, 12, 13], [6, 8, 10], [8, 15, 17], [9, 12, 15], [12, 16, 20]])],
         survivors=["line 4: value -> 2", "line 5: value -> 0"]),
    dict(split="train", difficulty="hard", task="returns `[m, k]` with `m` ** `k` == `n`, `m` >= 2 and `k` >= 2 as large as possible, for the integer `n` >= 2, or None if `n` is not a power of that form.", ref="""
def perfect_power(n: int) -> list[int] | None:
    for k in range(n.bit_length(), 1, -1):
        m = 2
        while m ** k < n:
            m += 1
        if m ** k == n:
            return [m, k]
    return None
""", cases=[([64], [2, 6]), ([2], None), ([4], [2, 2]), ([8], [2, 3]), ([9], [3, 2]), ([12], None), ([81], [3, 4]), ([1000], [10, 3]), ([36], [6, 2]), ([729], [3, 6]), ([1024], [2, 10]), ([243], [3, 5])],
         survivors=["line 3: value -> 1", "line 8: return -> Constant"]),
    dict(split="train", difficulty="easy", task="returns True if the square of the non-negative integer `n` ends with the decimal digits of `n` (like 25, whose square is 625), and False otherwise.", ref="""
def is_automorphic(n: int) -> bool:
    return str(n * n).endswith(str(n))
""", cases=[([76], True), ([25], True), ([5], True), ([6], True), ([0], True), ([1], True), ([7], False), ([10], False), ([24], False), ([376], True)]),
    dict(split="train", difficulty="easy", task="returns True if the decimal digits of the non-negative integer `n` never decrease from left to right (like 1335), and False otherwise.", ref="""
def digits_non_decreasing(n: int) -> bool:
    s = str(n)
    return all(a <= b for a, b in zip(s, s[1:]))
""", cases=[([1335], True), ([0], True), ([321], False), ([132], False), ([1111], True), ([1229], True), ([90], False), ([12341], False)]),
    dict(split="train", difficulty="medium", task='classifies the triangle with positive integer side lengths `a`, `b` and `c`: it returns "invalid" if the two shorter sides together are not longer than the longest one (a flat triangle is invalid), otherwise "equilateral" if all three sides are equal, "isosceles" if exactly two are equal, and "scalene" if none are.', ref="""
def triangle_kind(a: int, b: int, c: int) -> str:
    x, y, z = sorted([a, b, c])
    if x + y <= z:
        return "invalid"
    if x == z:
        return "equilateral"
    if x == y or y == z:
        return "isosceles"
    return "scalene"
""", cases=[([3, 4, 5], "scalene"), ([2, 2, 2], "equilateral"), ([2, 2, 3], "isosceles"), ([3, 2, 3], "isosceles"), ([1, 2, 3], "invalid"), ([1, 1, 5], "invalid"), ([5, 5, 9], "isosceles"), ([4, 4, 8], "invalid"), ([10, 1, 1], "invalid")]),
    dict(split="train", difficulty="medium", task="returns the `n`-th Catalan number (1, 1, 2, 5, 14, 42, ... for `n` = 0, 1, 2, ...), using C(0) = 1 and C(k + 1) = C(k) * 2 * (2k + 1) / (k + 2), where the division is always exact.", ref="""
def catalan(n: int) -> int:
    c = 1
    for k in range(n):
        c = c * 2 * (2 * k + 1) // (k + 2)
    return c
""", cases=[([5], 42), ([0], 1), ([1], 1), ([2], 2), ([3], 5), ([4], 14), ([10], 16796)]),
    dict(split="train", difficulty="easy", task="returns the last decimal digit of `a` raised to the power `b`, for non-negative integers `a` and `b` (0 to the power 0 counts as 1).", ref="""
def last_digit_of_power(a: int, b: int) -> int:
    return pow(a, b, 10)
""", cases=[([7, 222], 9), ([2, 10], 4), ([0, 0], 1), ([0, 5], 0), ([123456789, 1000], 1), ([5, 3], 5), ([10, 1], 0), ([3, 0], 1), ([4, 7], 4), ([8, 5], 8)]),
    dict(split="train", difficulty="easy", task="returns True if the integer `n` is the square of an integer (0 and 1 are; negative numbers are not), and False otherwise.", ref="""
def is_perfect_square(n: int) -> bool:
    import math
    return n >= 0 and math.isqrt(n) ** 2 == n
""", cases=[([49], True), ([50], False), ([0], True), ([1], True), ([-1], False), ([-4], False), ([2], False), ([1000000], True), ([999999], False)]),
    dict(split="train", difficulty="easy", task="returns how many multiples of the positive integer `k` lie between `a` and `b` inclusive (`a` <= `b`; zero and negative multiples count too).", ref="""
def count_multiples_in_range(a: int, b: int, k: int) -> int:
    return b // k - (a - 1) // k
""", cases=[([1, 20, 3], 6), ([3, 3, 3], 1), ([4, 5, 3], 0), ([0, 10, 5], 3), ([-6, 6, 3], 5), ([10, 10, 4], 0), ([1, 1, 1], 1)]),
    dict(split="train", difficulty="medium", task="returns the continued fraction terms of the fraction `a`/`b` (positive integers): record the integer part `a // b`, then continue in the same way with `b`/(`a % b`), stopping when the remainder is 0.", ref="""
def continued_fraction(a: int, b: int) -> list[int]:
    terms = []
    while b:
        terms.append(a // b)
        a, b = b, a % b
    return terms
""", cases=[([45, 16], [2, 1, 4, 3]), ([1, 1], [1]), ([3, 1], [3]), ([1, 3], [0, 3]), ([7, 2], [3, 2]), ([13, 8], [1, 1, 1, 1, 2]), ([100, 7], [14, 3, 2])]),
    dict(split="train", difficulty="easy", task="returns the `k`-th term (`k` = 1 gives `first`) of the arithmetic sequence that starts at `first` and changes by `step` from each term to the next.", ref="""
def arithmetic_term(first: int, step: int, k: int) -> int:
    return first + (k - 1) * step
""", cases=[([3, 4, 5], 19), ([3, 4, 1], 3), ([10, -3, 4], 1), ([0, 0, 100], 0), ([-5, 2, 3], -1), ([7, 1, 10], 16)]),
    dict(split="train", difficulty="easy", task="returns the sum of the first `count` terms of the geometric sequence `first`, `first * ratio`, `first * ratio**2`, ... (0 when `count` is 0).", ref="""
def geometric_sum(first: int, ratio: int, count: int) -> int:
    return sum(first * ratio ** i for i in range(count))
""", cases=[([3, 2, 4], 45), ([5, 10, 0], 0), ([5, 10, 1], 5), ([1, 1, 6], 6), ([2, -1, 5], 2), ([1, 3, 5], 121), ([4, 0, 3], 4)]),
    dict(split="train", difficulty="easy", task="returns the quadrant of the point (`x`, `y`): 1 where both coordinates are positive, 2 where `x` is negative and `y` positive, 3 where both are negative, 4 where `x` is positive and `y` negative, and 0 if the point lies on an axis.", ref="""
def quadrant(x: int, y: int) -> int:
    if x == 0 or y == 0:
        return 0
    if x > 0:
        return 1 if y > 0 else 4
    return 2 if y > 0 else 3
""", cases=[([3, 4], 1), ([-3, 4], 2), ([-3, -4], 3), ([3, -4], 4), ([0, 5], 0), ([5, 0], 0), ([0, 0], 0), ([1, 1], 1), ([-1, 1], 2), ([-1, -1], 3), ([1, -1], 4), ([0, -1], 0), ([-1, 0], 0)],
         survivors=["line 4: ops -> GtE", "line 4: value -> -1", "line 5: ops -> GtE", "line 5: value -> -1", "line 6: ops -> GtE", "line 6: value -> -1"]),
    dict(split="train", difficulty="medium", task="returns, as a string, the first `k` digits after the decimal point of `a` / `b` (`a` >= 0, `b` > 0), computed exactly by long division and cut off, not rounded.", ref="""
def decimal_digits(a: int, b: int, k: int) -> str:
    r = a % b
    out = ""
    for _ in range(k):
        r *= 10
        out += str(r // b)
        r %= b
    return out
""", cases=[([1, 7, 6], "142857"), ([1, 3, 4], "3333"), ([1, 4, 3], "250"), ([5, 5, 2], "00"), ([22, 7, 5], "14285"), ([2, 3, 0], ""), ([123, 1000, 3], "123"), ([2, 3, 3], "666")]),
    dict(split="train", difficulty="medium", task="returns True if the positive integer `n` is a happy number: repeatedly replacing the number by the sum of the squares of its decimal digits eventually reaches 1 (an unhappy number instead loops forever without reaching 1), and False otherwise.", ref="""
def is_happy(n: int) -> bool:
    seen = set()
    while n not in seen:
        seen.add(n)
        n = sum(int(d) ** 2 for d in str(n))
    return n == 1
""", cases=[([19], True), ([1], True), ([2], False), ([7], True), ([4], False), ([10], True), ([20], False), ([100], True), ([13], True), ([11], False)]),
    dict(split="train", difficulty="easy", task="returns the middle value of the three integers `a`, `b` and `c`: the second one once they are sorted.", ref="""
def middle_of_three(a: int, b: int, c: int) -> int:
    return sorted([a, b, c])[1]
""", cases=[([3, 1, 2], 2), ([1, 2, 3], 2), ([5, 5, 1], 5), ([7, 7, 7], 7), ([-1, -5, 0], -1), ([10, 2, 8], 8), ([2, 9, 9], 9)]),
    dict(split="train", difficulty="hard", task="returns the smallest non-negative integer `x` with `x % moduli[i] == remainders[i]` for every i, where `remainders` and `moduli` are non-empty lists of equal length and the moduli are positive; it returns -1 if no such `x` exists.", ref="""
def chinese_remainder(remainders: list[int], moduli: list[int]) -> int:
    import math
    limit = 1
    for m in moduli:
        limit = limit * m // math.gcd(limit, m)
    for x in range(limit):
        if all(x % m == r for r, m in zip(remainders, moduli)):
            return x
    return -1
""", cases=[([[2, 3, 2], [3, 5, 7]], 23), ([[1], [2]], 1), ([[0, 0], [4, 6]], 0), ([[1, 2], [4, 6]], -1), ([[3, 0], [4, 6]], -1), ([[1, 3], [4, 6]], 9), ([[0, 1], [3, 4]], 9), ([[4], [5]], 4)],
         survivors=["line 3: value -> 2", "line 5: op -> Mult"]),
    dict(split="train", difficulty="easy", task="returns the length of the shorter way between positions `a` and `b` on a circular track whose positions are numbered 0 to `n` - 1, where one step moves to a neighbouring position in either direction (and from `n` - 1 on to 0).", ref="""
def track_distance(a: int, b: int, n: int) -> int:
    d = abs(a - b)
    return min(d, n - d)
""", cases=[([1, 9, 10], 2), ([2, 5, 10], 3), ([0, 0, 7], 0), ([0, 5, 10], 5), ([6, 1, 12], 5), ([3, 4, 5], 1), ([0, 4, 5], 1)]),
    dict(split="train", difficulty="medium", task="returns True if the digit string `number` passes the Luhn check, and False otherwise: going from the rightmost digit to the left, every second digit (the 2nd, 4th, ... from the right) is doubled, 9 is subtracted from each doubled value above 9, and the sum of all the resulting digits must be divisible by 10.", ref="""
def luhn_valid(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0
""", cases=[(["79927398713"], True), (["79927398710"], False), (["0"], True), (["18"], True), (["81"], False), (["5"], False), (["50"], False), (["59"], True), (["1234567812345670"], True), (["1234567812345678"], False)],
         survivors=["line 7: ops -> GtE", "line 7: value -> 8", "line 9: op -> Sub"]),
    dict(split="train", difficulty="easy", task="returns the total value in cents of `quarters` quarters (25 cents each), `dimes` dimes (10 cents), `nickels` nickels (5 cents) and `pennies` pennies (1 cent).", ref="""
def coins_value(quarters: int, dimes: int, nickels: int, pennies: int) -> int:
    return 25 * quarters + 10 * dimes + 5 * nickels + pennies
""", cases=[([1, 2, 3, 4], 64), ([0, 0, 0, 0], 0), ([4, 0, 0, 0], 100), ([0, 1, 0, 0], 10), ([0, 0, 1, 0], 5), ([0, 0, 0, 7], 7)]),
    dict(split="train", difficulty="medium", task="returns the smallest integer greater than the non-negative integer `n` whose decimal digits read the same forwards and backwards.", ref="""
def next_palindrome(n: int) -> int:
    n += 1
    while str(n) != str(n)[::-1]:
        n += 1
    return n
""", cases=[([123], 131), ([0], 1), ([9], 11), ([11], 22), ([99], 101), ([808], 818), ([1991], 2002), ([120], 121)]),
    dict(split="train", difficulty="easy", task="compares two offers, `price1` for `qty1` units and `price2` for `qty2` units (all positive integers): it returns 1 if the first offer has the lower price per unit, 2 if the second one has, and 0 if the prices per unit are equal.", ref="""
def better_deal(price1: int, qty1: int, price2: int, qty2: int) -> int:
    a, b = price1 * qty2, price2 * qty1
    return 0 if a == b else (1 if a < b else 2)
""", cases=[([300, 3, 500, 4], 1), ([500, 4, 300, 3], 2), ([200, 2, 300, 3], 0), ([1, 1, 1, 1], 0), ([99, 10, 10, 1], 1), ([7, 2, 10, 3], 2)],
         survivors=["line 3: ops -> LtE"]),
    dict(split="train", difficulty="medium", task="returns how many carries happen when the non-negative integers `a` and `b` are added digit by digit in decimal, the way it is done on paper (a carry into the next column can cause another carry there).", ref="""
def count_carries(a: int, b: int) -> int:
    carries = carry = 0
    while a or b:
        carry = (a % 10 + b % 10 + carry) // 10
        carries += carry
        a //= 10
        b //= 10
    return carries
""", cases=[([555, 555], 3), ([123, 456], 0), ([0, 0], 0), ([99, 1], 2), ([9999, 1], 4), ([19, 1], 1), ([5, 5], 1), ([1, 99], 2), ([95, 5], 2), ([909, 91], 3)]),
    dict(split="train", difficulty="easy", task="returns the total surface area of a closed rectangular box with edge lengths `length`, `width` and `height`.", ref="""
def box_surface_area(length: int, width: int, height: int) -> int:
    return 2 * (length * width + width * height + length * height)
""", cases=[([2, 3, 4], 52), ([1, 1, 1], 6), ([5, 1, 1], 22), ([0, 3, 4], 24), ([10, 20, 30], 2200)]),
    dict(split="train", difficulty="easy", task="returns the average speed, in kilometres per hour rounded down to a whole number, of covering `meters` metres in `seconds` seconds (`seconds` is positive).", ref="""
def km_per_hour(meters: int, seconds: int) -> int:
    return meters * 3600 // (seconds * 1000)
""", cases=[([100, 10], 36), ([999, 1], 3596), ([1000, 3600], 1), ([0, 5], 0), ([5000, 1500], 12), ([42195, 7200], 21)]),
    dict(split="train", difficulty="medium", task="returns True if the fraction `num`/`den` (positive integers) has a finite decimal expansion, which is the case when its denominator in lowest terms has no prime factors other than 2 and 5, and False otherwise.", ref="""
def is_terminating_decimal(num: int, den: int) -> bool:
    import math
    den //= math.gcd(num, den)
    for p in (2, 5):
        while den % p == 0:
            den //= p
    return den == 1
""", cases=[([3, 8], True), ([1, 3], False), ([3, 6], True), ([1, 1], True), ([7, 70], True), ([1, 12], False), ([5, 15], False), ([9, 12], True), ([1, 1000], True), ([2, 14], False), ([1, 25], True), ([1, 6], False), ([1, 15], False)]),
    dict(split="train", difficulty="hard", task="returns the length of the repeating block of digits in the decimal expansion of 1/`n` for the positive integer `n`, or 0 if the expansion ends (1/7 = 0.142857142857... has period 6, 1/6 = 0.1666... has period 1 and 1/8 = 0.125 has 0).", ref="""
def decimal_period(n: int) -> int:
    r, seen = 1 % n, []
    while r and r not in seen:
        seen.append(r)
        r = r * 10 % n
    return len(seen) - seen.index(r) if r else 0
""", cases=[([7], 6), ([1], 0), ([2], 0), ([3], 1), ([6], 1), ([11], 2), ([12], 1), ([13], 6), ([17], 16), ([28], 6), ([40], 0), ([81], 9)],
         survivors=["line 2: value -> 2", "line 3: op -> Or"]),
    dict(split="train", difficulty="easy", task="returns the positive integer `n` with every digit after the first one replaced by 0 (so 4567 gives 4000).", ref="""
def round_to_leading_digit(n: int) -> int:
    s = str(n)
    return int(s[0]) * 10 ** (len(s) - 1)
""", cases=[([4567], 4000), ([7], 7), ([10], 10), ([99], 90), ([1000], 1000), ([12], 10), ([305], 300)]),
    dict(split="train", difficulty="easy", task="returns the sum of the interior angles, in degrees, of a simple polygon with `sides` sides (`sides` >= 3).", ref="""
def interior_angle_sum(sides: int) -> int:
    return (sides - 2) * 180
""", cases=[([5], 540), ([3], 180), ([4], 360), ([6], 720), ([12], 1800), ([100], 17640)]),
    dict(split="train", difficulty="easy", task="returns the angle `degrees` (any integer, possibly negative or 360 and more) as the equivalent angle from 0 to 359 degrees.", ref="""
def normalize_angle(degrees: int) -> int:
    return degrees % 360
""", cases=[([450], 90), ([0], 0), ([360], 0), ([-90], 270), ([359], 359), ([-720], 0), ([725], 5), ([-1], 359)]),
    dict(split="train", difficulty="medium", task="returns the tax, in cents, owed on an income of `income` whole dollars (non-negative): 0% of the first 10000 dollars, 10% of the part between 10000 and 40000 dollars, and 20% of the part above 40000 dollars.", ref="""
def income_tax(income: int) -> int:
    low = max(0, min(income, 40000) - 10000)
    high = max(0, income - 40000)
    return low * 10 + high * 20
""", cases=[([50000], 500000), ([0], 0), ([10000], 0), ([10001], 10), ([40000], 300000), ([40001], 300020), ([25000], 150000), ([9999], 0)]),
    dict(split="train", difficulty="hard", task="returns the Zeckendorf representation of the positive integer `n`: Fibonacci numbers taken from 1, 2, 3, 5, 8, 13, ... that add up to `n`, chosen greedily by repeatedly taking the largest one that is not more than what remains, listed from largest to smallest.", ref="""
def zeckendorf(n: int) -> list[int]:
    fibs = [1, 2]
    while fibs[-1] <= n:
        fibs.append(fibs[-1] + fibs[-2])
    out = []
    for f in reversed(fibs):
        if f <= n:
            out.append(f)
            n -= f
    return out
""", cases=[([100], [89, 8, 3]), ([1], [1]), ([2], [2]), ([4], [3, 1]), ([10], [8, 2]), ([20], [13, 5, 2]), ([33], [21, 8, 3, 1]), ([7], [5, 2]), ([12], [8, 3, 1])],
         survivors=["line 3: ops -> Lt", "line 2: value -> 1", "line 3: value -> 2"]),
    dict(split="train", difficulty="medium", task="returns the parking fee in dollars for a stay of `minutes` minutes (non-negative): free for up to 15 minutes; otherwise 3 dollars for the first hour or part of it, plus 2 dollars for each further started hour, but never more than 20 dollars in total.", ref="""
def parking_fee(minutes: int) -> int:
    if minutes <= 15:
        return 0
    hours = (minutes + 59) // 60
    return min(20, 3 + 2 * (hours - 1))
""", cases=[([130], 7), ([0], 0), ([15], 0), ([16], 3), ([60], 3), ([61], 5), ([120], 5), ([121], 7), ([600], 20), ([540], 19), ([1440], 20)]),
    dict(split="train", difficulty="easy", task="returns True if the decimal digits of the non-negative integer `n` alternate between odd and even, i.e. every two neighbouring digits have different parity (a single digit counts as alternating), and False otherwise.", ref="""
def digits_alternate_parity(n: int) -> bool:
    s = str(n)
    return all((int(a) + int(b)) % 2 == 1 for a, b in zip(s, s[1:]))
""", cases=[([1234], True), ([7], True), ([0], True), ([11], False), ([12], True), ([1245], False), ([505], True), ([2468], False), ([10101], True), ([1223], False), ([21], True)],
         survivors=["line 3: op -> Sub"]),
    dict(split="train", difficulty="medium", task="returns how many times the integer `p` (at least 2) divides the positive integer `n`: the largest `k` such that `p` to the power `k` divides `n`.", ref="""
def multiplicity(n: int, p: int) -> int:
    k = 0
    while n % p == 0:
        n //= p
        k += 1
    return k
""", cases=[([72, 2], 3), ([72, 3], 2), ([7, 2], 0), ([1, 5], 0), ([1024, 2], 10), ([1000, 10], 3), ([81, 9], 2), ([243, 3], 5), ([50, 5], 2)]),
    dict(split="train", difficulty="easy", task="returns the number of days in month `month` (1 to 12) of the year `year`, where February has 29 days in leap years (years divisible by 4 but not by 100, or divisible by 400) and 28 otherwise.", ref="""
def days_in_month(year: int, month: int) -> int:
    import calendar
    return calendar.monthrange(year, month)[1]
""", cases=[([2024, 2], 29), ([2023, 2], 28), ([1900, 2], 28), ([2000, 2], 29), ([2023, 1], 31), ([2023, 4], 30), ([2023, 12], 31), ([2023, 9], 30)]),
    dict(split="train", difficulty="easy", task="returns how many of the integers from 1 to `n` contain the digit `d` (0 to 9) at least once in their decimal representation.", ref="""
def count_with_digit(n: int, d: int) -> int:
    return sum(1 for k in range(1, n + 1) if str(d) in str(k))
""", cases=[([20, 1], 11), ([20, 0], 2), ([9, 9], 1), ([100, 5], 19), ([0, 3], 0), ([1, 1], 1), ([99, 0], 9), ([100, 0], 10)]),
    dict(split="train", difficulty="easy", task="returns True if the decimal digits of the positive integer `n`, which has an even number of digits, split into a first half and a second half with equal digit sums (like 123402, where 1 + 2 + 3 = 4 + 0 + 2), and False otherwise.", ref="""
def is_lucky_ticket(n: int) -> bool:
    s = str(n)
    half = len(s) // 2
    return sum(map(int, s[:half])) == sum(map(int, s[half:]))
""", cases=[([123402], True), ([11], True), ([12], False), ([1230], True), ([1234], False), ([9009], True), ([10], False), ([555555], True), ([123456], False), ([100001], True), ([5018], False)]),
    dict(split="train", difficulty="medium", task="returns in how many ways the positive integer `n` can be written as a sum of one or more consecutive positive integers (15 = 15 = 7 + 8 = 4 + 5 + 6 = 1 + 2 + 3 + 4 + 5, so 15 gives 4).", ref="""
def consecutive_sum_ways(n: int) -> int:
    ways = 0
    for start in range(1, n + 1):
        total, k = 0, start
        while total < n:
            total += k
            k += 1
        if total == n:
            ways += 1
    return ways
""", cases=[([15], 4), ([1], 1), ([2], 1), ([3], 2), ([8], 1), ([9], 3), ([16], 1), ([45], 6)],
         survivors=["line 3: value -> 2"]),
    dict(split="train", difficulty="medium", task="returns the integer `x` with 0 <= `x` < `m` such that `a * x` leaves the remainder 1 when divided by `m` (`m` >= 2), or -1 if there is no such `x`.", ref="""
def mod_inverse(a: int, m: int) -> int:
    for x in range(m):
        if a * x % m == 1:
            return x
    return -1
""", cases=[([3, 7], 5), ([2, 4], -1), ([1, 2], 1), ([10, 17], 12), ([4, 9], 7), ([6, 9], -1), ([17, 3120], 2753), ([15, 7], 1)]),
    dict(split="train", difficulty="easy", task="returns the fuel cost in cents, rounded down, of driving `km` kilometres in a car that burns `litres_per_100km` litres of fuel per 100 km, when fuel costs `cents_per_litre` cents per litre.", ref="""
def trip_fuel_cost(km: int, litres_per_100km: int, cents_per_litre: int) -> int:
    return km * litres_per_100km * cents_per_litre // 100
""", cases=[([250, 6, 180], 2700), ([0, 8, 150], 0), ([1, 1, 1], 0), ([50, 7, 199], 696), ([100, 5, 170], 850), ([333, 9, 201], 6023)]),
    dict(split="train", difficulty="easy", task="returns how many digits are printed in total when the pages of a book are numbered from 1 to `pages` (a book with 0 pages needs 0 digits).", ref="""
def page_number_digits(pages: int) -> int:
    return sum(len(str(p)) for p in range(1, pages + 1))
""", cases=[([12], 15), ([0], 0), ([9], 9), ([10], 11), ([99], 189), ([100], 192), ([1], 1)]),
    dict(split="train", difficulty="medium", task="returns the smallest positive integer whose decimal digits add up to `s` (`s` >= 1).", ref="""
def smallest_with_digit_sum(s: int) -> int:
    return int(str(s % 9) + "9" * (s // 9))
""", cases=[([20], 299), ([1], 1), ([9], 9), ([10], 19), ([18], 99), ([27], 999), ([28], 1999), ([5], 5), ([17], 89)]),
    dict(split="train", difficulty="easy", task="returns the nines' complement of the non-negative integer `n`: every decimal digit d of `n` is replaced by 9 - d, and leading zeros of the result are dropped (so 900 gives 99).", ref="""
def nines_complement(n: int) -> int:
    return 10 ** len(str(n)) - 1 - n
""", cases=[([123], 876), ([0], 9), ([9], 0), ([900], 99), ([5050], 4949), ([1], 8)]),
    dict(split="train", difficulty="medium", task='returns the compass direction nearest to the bearing `degrees` (an integer from 0 to 359, where 0 is north and 90 is east), one of "N", "NE", "E", "SE", "S", "SW", "W", "NW"; each direction covers the 45 degrees centred on its own bearing.', ref="""
def compass_direction(degrees: int) -> str:
    return ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][(degrees * 2 + 45) // 90 % 8]
""", cases=[([100], "E"), ([0], "N"), ([22], "N"), ([23], "NE"), ([67], "NE"), ([68], "E"), ([180], "S"), ([337], "NW"), ([338], "N"), ([359], "N"), ([225], "SW"), ([290], "W"), ([315], "NW")],
         survivors=["line 2: value -> 44"]),
    dict(split="train", difficulty="hard", task="returns the smallest positive multiple of the positive integer `n` whose decimal digits are all 0 or 1.", ref="""
def smallest_binary_digit_multiple(n: int) -> int:
    i = 1
    while int(bin(i)[2:]) % n:
        i += 1
    return int(bin(i)[2:])
""", cases=[([3], 111), ([1], 1), ([2], 10), ([5], 10), ([7], 1001), ([6], 1110), ([4], 100), ([12], 11100), ([11], 11), ([8], 1000), ([13], 1001), ([14], 10010)]),
    dict(split="train", difficulty="easy", task="returns the quarter of the year (1 to 4) that month number `month` (1 for January to 12 for December) belongs to: January to March are quarter 1, April to June quarter 2, and so on.", ref="""
def quarter_of_year(month: int) -> int:
    return (month - 1) // 3 + 1
""", cases=[([5], 2), ([1], 1), ([3], 1), ([4], 2), ([6], 2), ([7], 3), ([9], 3), ([10], 4), ([12], 4)]),
    dict(split="train", difficulty="easy", task="returns the weekly pay in cents for working `hours` hours (a non-negative integer) at `rate` cents per hour, where every hour beyond the first 40 is paid at double the rate.", ref="""
def weekly_pay(hours: int, rate: int) -> int:
    return hours * rate + max(0, hours - 40) * rate
""", cases=[([45, 1000], 50000), ([0, 1500], 0), ([40, 1000], 40000), ([41, 1000], 42000), ([39, 100], 3900), ([60, 2000], 160000), ([10, 1], 10)]),
    dict(split="train", difficulty="medium", task="returns how many times the non-negative integer `n` must be replaced by itself plus its digit reversal (like 57 + 75 = 132) until it reads the same forwards and backwards; 0 if `n` already does.", ref="""
def reverse_add_steps(n: int) -> int:
    steps = 0
    while str(n) != str(n)[::-1]:
        n += int(str(n)[::-1])
        steps += 1
    return steps
""", cases=[([57], 2), ([0], 0), ([11], 0), ([12], 1), ([89], 24), ([10], 1), ([87], 4), ([195], 4)]),
    dict(split="train", difficulty="easy", task="returns True if a rectangle of `w1` by `h1` fits inside a rectangle of `w2` by `h2` (touching the edges is allowed), either as it is or turned by 90 degrees, with its sides parallel to the sides of the larger one, and False otherwise.", ref="""
def rectangle_fits(w1: int, h1: int, w2: int, h2: int) -> bool:
    return (w1 <= w2 and h1 <= h2) or (w1 <= h2 and h1 <= w2)
""", cases=[([3, 5, 6, 4], True), ([2, 2, 3, 3], True), ([3, 3, 3, 3], True), ([4, 1, 3, 5], True), ([4, 4, 3, 5], False), ([1, 6, 5, 5], False), ([5, 2, 4, 10], True), ([2, 7, 7, 1], False), ([6, 2, 5, 7], True), ([6, 3, 7, 2], False), ([5, 2, 5, 3], True), ([2, 5, 3, 5], True), ([5, 2, 3, 5], True), ([2, 5, 5, 3], True)]),
    dict(split="train", difficulty="easy", task="returns how many posts a straight fence of length `length` (positive) needs when there is a post at each end and neighbouring posts stand at most `gap` apart, using as few posts as possible.", ref="""
def fence_posts(length: int, gap: int) -> int:
    return -(-length // gap) + 1
""", cases=[([10, 3], 5), ([9, 3], 4), ([1, 5], 2), ([12, 4], 4), ([13, 4], 5), ([7, 1], 8), ([100, 100], 2)]),
    dict(split="train", difficulty="easy", task="returns the month number (1 to 12) that comes `k` months after the month `month` (1 to 12), counting around the year; `k` may be negative or larger than 12.", ref="""
def month_add(month: int, k: int) -> int:
    return (month - 1 + k) % 12 + 1
""", cases=[([11, 3], 2), ([1, 0], 1), ([12, 1], 1), ([1, -1], 12), ([6, 24], 6), ([3, -15], 12), ([12, 0], 12), ([5, 7], 12)]),
    dict(split="train", difficulty="medium", task="returns how many steps Kaprekar's routine takes to reach 6174 from the four-digit number `n` (written with leading zeros if needed, its digits not all equal): each step replaces the number by its four digits in descending order minus its four digits in ascending order, both read as numbers (6174 itself takes 0 steps).", ref="""
def kaprekar_steps(n: int) -> int:
    steps = 0
    while n != 6174:
        digits = sorted(f"{n:04d}")
        n = int("".join(reversed(digits))) - int("".join(digits))
        steps += 1
    return steps
""", cases=[([3524], 3), ([6174], 0), ([2111], 5), ([1000], 5), ([1234], 3), ([8352], 1), ([3087], 2)]),
    dict(split="train", difficulty="hard", task='returns the integer `n` written in base -2 (negabinary) as a string of 0s and 1s, most significant digit first and without leading zeros: digit k is worth (-2) ** k, so "110" is 4 - 2 + 0 = 2 (0 gives "0", and negative numbers need no minus sign).', ref="""
def to_negabinary(n: int) -> str:
    if n == 0:
        return "0"
    out = ""
    while n:
        r = n % 2
        out = str(r) + out
        n = (n - r) // -2
    return out
""", cases=[([6], "11010"), ([0], "0"), ([1], "1"), ([2], "110"), ([3], "111"), ([-1], "11"), ([-2], "10"), ([4], "100"), ([-3], "1101"), ([10], "11110")]),
    dict(split="train", difficulty="easy", task="returns True if the positive integer `n` is square-free, i.e. not divisible by the square of any integer greater than 1 (1 is square-free), and False otherwise.", ref="""
def is_squarefree(n: int) -> bool:
    import math
    return all(n % (k * k) for k in range(2, math.isqrt(n) + 1))
""", cases=[([30], True), ([1], True), ([4], False), ([12], False), ([2], True), ([9], False), ([10], True), ([49], False), ([50], False), ([97], True), ([8], False)],
         survivors=["line 3: value -> 2"]),
    dict(split="train", difficulty="medium", task="returns how many squares of any size, made of whole cells, there are in a grid of `rows` by `cols` unit cells (a 2 x 2 grid holds four 1 x 1 squares and one 2 x 2 square, 5 in all; a grid with 0 rows or columns holds none).", ref="""
def count_squares_in_grid(rows: int, cols: int) -> int:
    return sum((rows - k + 1) * (cols - k + 1) for k in range(1, min(rows, cols) + 1))
""", cases=[([2, 3], 8), ([2, 2], 5), ([1, 1], 1), ([0, 5], 0), ([3, 3], 14), ([1, 5], 5), ([4, 3], 20), ([8, 8], 204)],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="medium", task="returns the multiplicative persistence of the non-negative integer `n`: how many times the number must be replaced by the product of its decimal digits until it has a single digit (0 if it already has one).", ref="""
def multiplicative_persistence(n: int) -> int:
    steps = 0
    while n >= 10:
        p = 1
        for d in str(n):
            p *= int(d)
        n = p
        steps += 1
    return steps
""", cases=[([39], 3), ([0], 0), ([9], 0), ([10], 1), ([25], 2), ([999], 4), ([77], 4), ([277777788888899], 11), ([11], 1)]),
    dict(split="train", difficulty="easy", task="returns how many segments are lit when the non-negative integer `n` is shown on a seven-segment display, where the digits 0 to 9 light 6, 2, 5, 5, 4, 5, 6, 3, 7 and 6 segments respectively.", ref="""
def seven_segment_count(n: int) -> int:
    return sum([6, 2, 5, 5, 4, 5, 6, 3, 7, 6][int(d)] for d in str(n))
""", cases=[([1234], 16), ([0], 6), ([8], 7), ([11], 4), ([7], 3), ([90], 12), ([5], 5), ([6], 6), ([123456789], 43)]),
    dict(split="train", difficulty="hard", task="returns the lucky numbers up to `n` (`n` >= 1) in increasing order. They are sieved like this: start with the odd numbers 1, 3, 5, ... up to `n`; then, for the second number in the list (3), remove every 3rd number of the current list; then take the next surviving number after it (7) and remove every 7th number of the current list; and so on, each time using the next surviving number, until it is larger than the length of the list.", ref="""
def lucky_numbers(n: int) -> list[int]:
    nums = list(range(1, n + 1, 2))
    i = 1
    while i < len(nums) and nums[i] <= len(nums):
        step = nums[i]
        del nums[step - 1::step]
        i += 1
    return nums
""", cases=[([25], [1, 3, 7, 9, 13, 15, 21, 25]), ([1], [1]), ([2], [1]), ([3], [1, 3]), ([5], [1, 3]), ([10], [1, 3, 7, 9]), ([50], [1, 3, 7, 9, 13, 15, 21, 25, 31, 33, 37, 43, 49]), ([100], [1, 3, 7, 9, 13, 15, 21, 25, 31, 33, 37, 43, 49, 51, 63, 67, 69, 73, 75, 79, 87, 93, 99])]),
    dict(split="train", difficulty="easy", task="reads the byte value `b` (0 to 255) as an 8-bit two's complement number and returns that number: 128 to 255 stand for -128 to -1, and 0 to 127 for themselves.", ref="""
def byte_to_signed(b: int) -> int:
    return b - 256 if b >= 128 else b
""", cases=[([200], -56), ([0], 0), ([127], 127), ([128], -128), ([255], -1), ([1], 1), ([100], 100)]),
    dict(split="train", difficulty="easy", task="rotates the point (`x`, `y`) about the origin by 90 degrees counter-clockwise `times` times (`times` >= 0) and returns the resulting point as `[x, y]`; one such rotation takes (x, y) to (-y, x).", ref="""
def rotate_point(x: int, y: int, times: int) -> list[int]:
    for _ in range(times % 4):
        x, y = -y, x
    return [x, y]
""", cases=[([3, 1, 1], [-1, 3]), ([3, 1, 0], [3, 1]), ([3, 1, 2], [-3, -1]), ([3, 1, 3], [1, -3]), ([3, 1, 4], [3, 1]), ([2, -5, 5], [5, 2]), ([0, 0, 7], [0, 0]), ([1, 2, 6], [-1, -2])]),
    dict(split="train", difficulty="medium", task="returns how many points with integer coordinates lie on the straight segment from (`x1`, `y1`) to (`x2`, `y2`), both end points included (a segment whose two ends are the same point has one).", ref="""
def points_on_segment(x1: int, y1: int, x2: int, y2: int) -> int:
    import math
    return math.gcd(x2 - x1, y2 - y1) + 1
""", cases=[([0, 0, 6, 4], 3), ([0, 0, 0, 0], 1), ([0, 0, 5, 0], 6), ([1, 1, 4, 4], 4), ([-2, 3, 2, -3], 3), ([0, 0, 3, 7], 2), ([2, 5, 2, -1], 7)]),
    dict(split="train", difficulty="medium", task="returns how many months of the year `year` (Gregorian calendar) have their 13th day falling on a Friday.", ref="""
def count_friday_13ths(year: int) -> int:
    from datetime import date
    return sum(date(year, m, 13).weekday() == 4 for m in range(1, 13))
""", cases=[([2015], 3), ([2024], 2), ([2023], 2), ([2026], 3), ([2022], 1), ([2021], 1), ([2020], 2), ([2017], 2)]),
    dict(split="train", difficulty="easy", task="returns how many days it is from today until the next day that is weekday `target`, where weekdays are numbered 0 (Monday) to 6 (Sunday) and today is weekday `today`; if `target` is today, it returns 0.", ref="""
def days_until_weekday(today: int, target: int) -> int:
    return (target - today) % 7
""", cases=[([4, 0], 3), ([0, 0], 0), ([0, 6], 6), ([6, 0], 1), ([2, 5], 3), ([5, 2], 4), ([3, 3], 0)]),
    dict(split="train", difficulty="medium", task="returns the departure time of the first bus leaving at or after the time `now`, for buses that leave at `first`, `first + interval`, `first + 2 * interval`, and so on (all times are non-negative whole minutes and `interval` is positive); if `now` is before `first`, that is `first`.", ref="""
def next_departure(first: int, interval: int, now: int) -> int:
    waits = max(0, -(-(now - first) // interval))
    return first + waits * interval
""", cases=[([360, 15, 400], 405), ([360, 15, 300], 360), ([360, 15, 360], 360), ([360, 15, 361], 375), ([360, 15, 375], 375), ([0, 7, 50], 56), ([10, 10, 100], 100), ([5, 1, 9], 9)]),
    dict(split="train", difficulty="easy", task="returns the largest odd number that divides the positive integer `n`.", ref="""
def largest_odd_divisor(n: int) -> int:
    while n % 2 == 0:
        n //= 2
    return n
""", cases=[([40], 5), ([1], 1), ([7], 7), ([8], 1), ([96], 3), ([1024], 1), ([30], 15), ([2], 1)]),
    dict(split="train", difficulty="easy", task="swaps the high four bits and the low four bits of the byte `b` (0 to 255) and returns the resulting byte value (so 0x12, which is 18, becomes 0x21, which is 33).", ref="""
def swap_nibbles(b: int) -> int:
    return ((b & 15) << 4) | (b >> 4)
""", cases=[([18], 33), ([0], 0), ([255], 255), ([1], 16), ([16], 1), ([171], 186), ([240], 15), ([100], 70)]),
]
