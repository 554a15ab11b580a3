"""Lists problems of the problem bank (checked by data/problems/bank_check.py)."""
PROBLEMS = [
    dict(split="train", difficulty="easy", task="returns the arithmetic mean of the numbers in `nums` rounded to 2 decimal places, or 0.0 if `nums` is empty.", ref="""
def mean_value(nums: list[int]) -> float:
    if not nums:
        return 0.0
    return round(sum(nums) / len(nums), 2)
""", cases=[([[1, 2, 3, 4]], 2.5), ([[1, 2, 2]], 1.67), ([[]], 0.0), ([[-3, 3, 1]], 0.33), ([[10]], 10.0)]),
    dict(split="train", difficulty="medium", task="returns a new list in which the items at positions 0 and 1 are swapped, then the items at positions 2 and 3, and so on; with an odd length the last item stays in place.", ref="""
def swap_pairs(items: list) -> list:
    out = list(items)
    for i in range(0, len(out) - 1, 2):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out
""", cases=[([[1, 2, 3, 4, 5]], [2, 1, 4, 3, 5]), ([[1, 2, 3, 4]], [2, 1, 4, 3]), ([[]], []), ([["a"]], ["a"]), ([["a", "b"]], ["b", "a"])]),
    dict(split="train", difficulty="easy", task="returns a new list in which every number of `nums` below `lo` is replaced by `lo` and every number above `hi` is replaced by `hi` (`lo` <= `hi`); numbers between them are unchanged.", ref="""
def clamp_values(nums: list[int], lo: int, hi: int) -> list[int]:
    return [min(max(x, lo), hi) for x in nums]
""", cases=[([[1, 5, 10, -3], 0, 6], [1, 5, 6, 0]), ([[], 0, 1], []), ([[2, 2, 2], 2, 2], [2, 2, 2]), ([[-5, 5], -1, 1], [-1, 1]), ([[3, 7], 0, 10], [3, 7])]),
    dict(split="train", difficulty="hard", task="returns a list whose element i is the first number to the right of `nums[i]` that is strictly greater than `nums[i]`, or -1 if there is none.", ref="""
def next_greater(nums: list[int]) -> list[int]:
    out = [-1] * len(nums)
    stack = []
    for i, x in enumerate(nums):
        while stack and nums[stack[-1]] < x:
            out[stack.pop()] = x
        stack.append(i)
    return out
""", cases=[([[4, 5, 2, 10, 8]], [5, 10, 10, -1, -1]), ([[]], []), ([[3, 3]], [-1, -1]), ([[5, 4, 3]], [-1, -1, -1]), ([[1, 3, 2, 4]], [3, 4, 4, -1]), ([[2, 1, 2]], [-1, 2, -1])]),
    dict(split="train", difficulty="easy", task="returns the items of `items` at the positions listed in `indices`, in the order of `indices` (positions may repeat; all of them are valid non-negative indices).", ref="""
def pick_indices(items: list, indices: list[int]) -> list:
    return [items[i] for i in indices]
""", cases=[([["a", "b", "c", "d"], [2, 0]], ["c", "a"]), ([[1, 2, 3], []], []), ([[5, 6], [1, 1, 0]], [6, 6, 5]), ([[9], [0]], [9]), ([["x", "y", "z"], [0, 1, 2]], ["x", "y", "z"])]),
    dict(split="train", difficulty="medium", task="returns `items` with every run of equal neighbouring items reduced to a single item (equal items that are not neighbours are all kept).", ref="""
def collapse_repeats(items: list) -> list:
    out = []
    for x in items:
        if not out or out[-1] != x:
            out.append(x)
    return out
""", cases=[([[1, 1, 2, 2, 2, 1, 3, 3]], [1, 2, 1, 3]), ([[]], []), ([["a"]], ["a"]), ([[5, 5, 5]], [5]), ([[1, 2, 1, 2]], [1, 2, 1, 2])]),
    dict(split="train", difficulty="easy", task="returns a new list in which every item of `items` that is equal to `old` is replaced by `new`; the other items are unchanged.", ref="""
def replace_all(items: list, old, new) -> list:
    return [new if x == old else x for x in items]
""", cases=[([[1, 2, 1, 3], 1, 9], [9, 2, 9, 3]), ([[], 1, 2], []), ([["a", "b"], "c", "d"], ["a", "b"]), ([["x", "x"], "x", "y"], ["y", "y"]), ([[0, 1], 1, 0], [0, 0])]),
    dict(split="train", difficulty="medium", task="converts the strings of `items` that are whole numbers (one or more digits, optionally preceded by a single '-') to integers and returns them in order, skipping every other string.", ref="""
def parse_ints(items: list[str]) -> list[int]:
    return [int(s) for s in items if (s[1:] if s.startswith("-") else s).isdigit()]
""", cases=[([["12", "abc", "-7", "3.5", ""]], [12, -7]), ([[]], []), ([["-"]], []), ([["007", "-0"]], [7, 0]), ([["--5", "5-", "x1"]], []), ([["42"]], [42])]),
    dict(split="train", difficulty="easy", task="returns a list with each string of `words` cut down to at most its first `n` characters (`n` >= 0); shorter strings are unchanged.", ref="""
def truncate_words(words: list[str], n: int) -> list[str]:
    return [w[:n] for w in words]
""", cases=[([["apple", "fig", "banana"], 3], ["app", "fig", "ban"]), ([["abc"], 0], [""]), ([[], 2], []), ([["hi", "hello"], 5], ["hi", "hello"]), ([["abcdef"], 1], ["a"])]),
    dict(split="train", difficulty="easy", task="returns a list in which each string of `items` is prefixed with its 1-based position, a dot and a space (so the first item \"milk\" becomes \"1. milk\").", ref="""
def numbered_items(items: list[str]) -> list[str]:
    return [f"{i}. {s}" for i, s in enumerate(items, 1)]
""", cases=[([["milk", "eggs"]], ["1. milk", "2. eggs"]), ([[]], []), ([["a", "b", "c"]], ["1. a", "2. b", "3. c"]), ([[""]], ["1. "]), ([["x y"]], ["1. x y"])]),
    dict(split="train", difficulty="medium", task="starts a balance at 0, adds the amounts of `changes` one after another, and returns the lowest balance reached, counting the starting 0 (so the result is never above 0).", ref="""
def lowest_balance(changes: list[int]) -> int:
    low = bal = 0
    for c in changes:
        bal += c
        low = min(low, bal)
    return low
""", cases=[([[5, -8, 2, -4, 10]], -5), ([[]], 0), ([[1, 2, 3]], 0), ([[-1]], -1), ([[-3, 3, -3]], -3)]),
    dict(split="train", difficulty="easy", task="returns the list of differences between neighbouring numbers: element i is `nums[i + 1] - nums[i]` (an empty list when `nums` has fewer than two numbers).", ref="""
def adjacent_differences(nums: list[int]) -> list[int]:
    return [b - a for a, b in zip(nums, nums[1:])]
""", cases=[([[1, 4, 9, 16]], [3, 5, 7]), ([[5]], []), ([[]], []), ([[3, 1, 1]], [-2, 0]), ([[0, 10, 5, 5, 20]], [10, -5, 0, 15])]),
    dict(split="train", difficulty="medium", task="returns the first index `i` at which the sum of the numbers left of position `i` equals the sum of the numbers right of it (an empty side sums to 0), or -1 if there is no such index.", ref="""
def pivot_index(nums: list[int]) -> int:
    left, total = 0, sum(nums)
    for i, x in enumerate(nums):
        if left == total - left - x:
            return i
        left += x
    return -1
""", cases=[([[1, 7, 3, 6, 5, 6]], 3), ([[1, 2, 3]], -1), ([[2, 1, -1]], 0), ([[]], -1), ([[0]], 0), ([[1, -1, 5]], 2), ([[3, 3, 0, 3, 3]], 2)]),
    dict(split="train", difficulty="easy", task="returns the numbers of `nums` that are strictly greater than the mean of `nums`, in their original order (an empty list gives an empty list).", ref="""
def above_average(nums: list[int]) -> list[int]:
    if not nums:
        return []
    avg = sum(nums) / len(nums)
    return [x for x in nums if x > avg]
""", cases=[([[1, 2, 3, 10]], [10]), ([[1, 2, 3]], [3]), ([[]], []), ([[5, 5, 5]], []), ([[-4, 0, 1]], [0, 1])]),
    dict(split="train", difficulty="hard", task="returns how many contiguous, non-empty sub-lists of `nums` have a sum equal to `k` (the numbers may be negative).", ref="""
def count_subarrays_with_sum(nums: list[int], k: int) -> int:
    count = 0
    for i in range(len(nums)):
        total = 0
        for j in range(i, len(nums)):
            total += nums[j]
            if total == k:
                count += 1
    return count
""", cases=[([[1, 2, 3, -2, 2], 3], 4), ([[], 0], 0), ([[0, 0], 0], 3), ([[1, 1, 1], 2], 2), ([[5], 4], 0), ([[-1, 1, -1], 0], 2)]),
    dict(split="train", difficulty="easy", task="returns every `n`-th item of `items` starting with the first one, i.e. the items at indices 0, n, 2n, ... (`n` >= 1).", ref="""
def every_nth(items: list, n: int) -> list:
    return items[::n]
""", cases=[([[1, 2, 3, 4, 5, 6, 7], 3], [1, 4, 7]), ([["a", "b", "c"], 1], ["a", "b", "c"]), ([[], 2], []), ([[1, 2, 3, 4], 2], [1, 3]), ([[9, 8], 5], [9])]),
    dict(split="train", difficulty="medium", task="returns the largest profit from buying once and selling once later, where `prices[i]` is the price on day i: the largest `prices[j] - prices[i]` with i < j, or 0 if no profit is possible (also for fewer than two prices).", ref="""
def max_profit(prices: list[int]) -> int:
    best = 0
    low = float("inf")
    for p in prices:
        low = min(low, p)
        best = max(best, p - low)
    return best
""", cases=[([[7, 1, 5, 3, 6, 4]], 5), ([[7, 6, 4, 3, 1]], 0), ([[]], 0), ([[5]], 0), ([[2, 4, 1, 3]], 2), ([[1, 1]], 0)]),
    dict(split="train", difficulty="easy", task="returns the strings of `words` whose length is strictly greater than `n`, in their original order.", ref="""
def longer_than(words: list[str], n: int) -> list[str]:
    return [w for w in words if len(w) > n]
""", cases=[([["a", "abc", "abcd", "xy"], 2], ["abc", "abcd"]), ([[], 0], []), ([["", "a"], 0], ["a"]), ([["hello"], 5], []), ([["hi", "yo"], 1], ["hi", "yo"])]),
    dict(split="train", difficulty="medium", task="scans `items` from left to right and returns the first item whose value has already appeared earlier in the list, or None if all items are distinct.", ref="""
def first_repeat(items: list):
    seen = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
""", cases=[([[3, 1, 4, 1, 5, 3]], 1), ([[1, 2, 3]], None), ([[]], None), ([["a", "a"]], "a"), ([[2, 5, 5, 2]], 5)]),
    dict(split="train", difficulty="easy", task="returns the strings of `words` that start with `prefix` (case-sensitive), in their original order; an empty `prefix` matches every string.", ref="""
def with_prefix(words: list[str], prefix: str) -> list[str]:
    return [w for w in words if w.startswith(prefix)]
""", cases=[([["apple", "banana", "apricot", "Apple"], "ap"], ["apple", "apricot"]), ([["a", "b"], ""], ["a", "b"]), ([[], "x"], []), ([["pre", "prefix", "p"], "pre"], ["pre", "prefix"]), ([["cat"], "cats"], [])]),
    dict(split="train", difficulty="easy", task="returns a new list with every occurrence of `x` removed from `items`, the other items keeping their order.", ref="""
def remove_value(items: list, x) -> list:
    return [v for v in items if v != x]
""", cases=[([[1, 2, 1, 3, 1], 1], [2, 3]), ([[], 5], []), ([["a", "b"], "c"], ["a", "b"]), ([[7, 7], 7], []), ([[0, 1, 0], 0], [1])]),
    dict(split="train", difficulty="medium", task="returns the index of the `n`-th occurrence of `x` in `items` (n = 1 means the first occurrence), or -1 if `x` occurs fewer than `n` times.", ref="""
def nth_occurrence_index(items: list, x, n: int) -> int:
    count = 0
    for i, v in enumerate(items):
        if v == x:
            count += 1
            if count == n:
                return i
    return -1
""", cases=[([["a", "b", "a", "c", "a"], "a", 2], 2), ([[1, 2, 1], 1, 3], -1), ([[1, 2, 1], 1, 1], 0), ([[], 5, 1], -1), ([[4, 4, 4, 4], 4, 4], 3), ([[1, 2, 3], 3, 1], 2)]),
    dict(split="train", difficulty="easy", task="returns the sum of each number of `nums` multiplied by its index, i.e. `0*nums[0] + 1*nums[1] + 2*nums[2] + ...` (0 for an empty list).", ref="""
def index_weighted_sum(nums: list[int]) -> int:
    return sum(i * x for i, x in enumerate(nums))
""", cases=[([[3, 1, 4, 1, 5]], 32), ([[]], 0), ([[7]], 0), ([[1, 1, 1]], 3), ([[-2, -3]], -3)]),
    dict(split="train", difficulty="easy", task="returns `nums[0] - nums[1] + nums[2] - nums[3] + ...`: the numbers at even indices are added and those at odd indices subtracted (0 for an empty list).", ref="""
def alternating_sum(nums: list[int]) -> int:
    return sum(nums[::2]) - sum(nums[1::2])
""", cases=[([[5, 3, 8, 1]], 9), ([[]], 0), ([[4]], 4), ([[1, 2, 3, 4, 5, 6]], -3), ([[10, 20, 30]], 20)]),
    dict(split="train", difficulty="hard", task="returns the length of the longest contiguous sub-list of the non-negative numbers `nums` whose sum is at most `limit` (0 if no single number fits).", ref="""
def longest_window_sum_at_most(nums: list[int], limit: int) -> int:
    best = start = total = 0
    for end, x in enumerate(nums):
        total += x
        while total > limit:
            total -= nums[start]
            start += 1
        best = max(best, end - start + 1)
    return best
""", cases=[([[2, 1, 3, 1, 1, 4], 5], 3), ([[], 3], 0), ([[9], 5], 0), ([[1, 1, 1], 3], 3), ([[4, 2, 2, 3], 4], 2), ([[0, 0, 6, 0], 0], 2)]),
    dict(split="train", difficulty="medium", task="returns True if there are two different positions i and j in `nums` with `nums[i] == 2 * nums[j]`, and False otherwise (a single 0 does not pair with itself, but two zeros do).", ref="""
def has_double_pair(nums: list[int]) -> bool:
    return any(i != j and a == 2 * b for i, a in enumerate(nums) for j, b in enumerate(nums))
""", cases=[([[10, 2, 5, 3]], True), ([[3, 1, 7, 11]], False), ([[0]], False), ([[0, 0]], True), ([[]], False), ([[-2, -4]], True), ([[4, 7]], False)]),
    dict(split="train", difficulty="easy", task="returns a list whose element i is the larger of `a[i]` and `b[i]`, stopping at the end of the shorter list.", ref="""
def pairwise_max(a: list[int], b: list[int]) -> list[int]:
    return [max(x, y) for x, y in zip(a, b)]
""", cases=[([[1, 5, 3], [4, 2, 3]], [4, 5, 3]), ([[], [1]], []), ([[1, 2, 3], [0]], [1]), ([[-1, -2], [-3, -1]], [-1, -1]), ([[7], [7, 9]], [7])]),
    dict(split="train", difficulty="medium", task="returns how many neighbouring pairs of `nums` have opposite signs, one number strictly negative and the other strictly positive (pairs involving 0 never count).", ref="""
def count_sign_changes(nums: list[int]) -> int:
    return sum(a * b < 0 for a, b in zip(nums, nums[1:]))
""", cases=[([[3, -2, -5, 4, 0, -1, 2]], 3), ([[]], 0), ([[1, 2, 3]], 0), ([[1, -1, 1, -1]], 3), ([[0, 0, 5]], 0), ([[4, 0]], 0)]),
    dict(split="train", difficulty="easy", task="returns the sum of `a[i] * b[i]` over all positions of the equal-length lists `a` and `b` (0 for empty lists).", ref="""
def dot_product(a: list[int], b: list[int]) -> int:
    return sum(x * y for x, y in zip(a, b))
""", cases=[([[1, 2, 3], [4, 5, 6]], 32), ([[], []], 0), ([[2, -1], [3, 4]], 2), ([[0, 0], [5, 5]], 0), ([[7], [-2]], -14)]),
    dict(split="train", difficulty="easy", task="returns True if all items of `items` are equal to each other (True for an empty list) and False otherwise.", ref="""
def all_equal(items: list) -> bool:
    return len(set(items)) <= 1
""", cases=[([[3, 3, 3]], True), ([[3, 3, 4]], False), ([[]], True), ([["a"]], True), ([[1, 2]], False), ([[1, 1]], True)]),
    dict(split="train", difficulty="medium", task="returns the length of the longest run of neighbouring positions of `nums` in which each number is strictly greater than the one before it (0 for an empty list, 1 if no number exceeds its predecessor).", ref="""
def longest_increasing_run(nums: list[int]) -> int:
    if not nums:
        return 0
    best = cur = 1
    for a, b in zip(nums, nums[1:]):
        cur = cur + 1 if b > a else 1
        best = max(best, cur)
    return best
""", cases=[([[1, 2, 3, 2, 3, 4, 5, 1]], 4), ([[]], 0), ([[5]], 1), ([[3, 3, 3]], 1), ([[5, 4, 3]], 1), ([[1, 2]], 2)]),
    dict(split="train", difficulty="easy", task="returns True if some two neighbouring items of `items` are equal and False otherwise (False for fewer than two items).", ref="""
def has_adjacent_equal(items: list) -> bool:
    return any(a == b for a, b in zip(items, items[1:]))
""", cases=[([[1, 2, 2, 3]], True), ([[1, 2, 1]], False), ([[]], False), ([[5]], False), ([["a", "a"]], True)]),
    dict(split="train", difficulty="medium", task="splits `items` at every occurrence of `sep` and returns the list of pieces between them; the separators are dropped, and separators next to each other or at the ends give empty pieces, so k separators always give k + 1 pieces.", ref="""
def split_on_value(items: list, sep) -> list[list]:
    pieces = [[]]
    for x in items:
        if x == sep:
            pieces.append([])
        else:
            pieces[-1].append(x)
    return pieces
""", cases=[([[1, 2, 0, 3, 0, 4, 5], 0], [[1, 2], [3], [4, 5]]), ([[], 0], [[]]), ([[0], 0], [[], []]), ([[1, 0, 0, 2], 0], [[1], [], [2]]), ([["a", "b"], "x"], [["a", "b"]]), ([[0, 1, 0], 0], [[], [1], []])]),
    dict(split="train", difficulty="easy", task="returns how many times a number of `nums` is strictly greater than the number just before it.", ref="""
def count_increases(nums: list[int]) -> int:
    return sum(b > a for a, b in zip(nums, nums[1:]))
""", cases=[([[1, 3, 2, 5, 5, 6]], 3), ([[]], 0), ([[4]], 0), ([[5, 4, 3]], 0), ([[1, 2, 3, 4]], 3)]),
    dict(split="train", difficulty="hard", task="slides the numbers of `row` to the left as in the game 2048: zeros are empty cells, the non-zero numbers move left, and scanning from the left, two equal neighbouring numbers (after the zeros are removed) merge into their sum, each number merging at most once. The result has the same length as `row`, padded with zeros on the right.", ref="""
def slide_merge(row: list[int]) -> list[int]:
    nums = [x for x in row if x != 0]
    out = []
    i = 0
    while i < len(nums):
        if i + 1 < len(nums) and nums[i] == nums[i + 1]:
            out.append(2 * nums[i])
            i += 2
        else:
            out.append(nums[i])
            i += 1
    return out + [0] * (len(row) - len(out))
""", cases=[([[2, 0, 2, 4]], [4, 4, 0, 0]), ([[2, 2, 2, 2]], [4, 4, 0, 0]), ([[2, 2, 2]], [4, 2, 0]), ([[0, 0, 0]], [0, 0, 0]), ([[]], []), ([[4, 0, 4, 8, 8]], [8, 16, 0, 0, 0]), ([[2, 4, 8]], [2, 4, 8]), ([[0, 2]], [2, 0])]),
    dict(split="train", difficulty="easy", task="returns the list of pairs of neighbouring items, each pair a two-element list `[items[i], items[i + 1]]` (an empty list for fewer than two items).", ref="""
def adjacent_pairs(items: list) -> list[list]:
    return [[a, b] for a, b in zip(items, items[1:])]
""", cases=[([[1, 2, 3]], [[1, 2], [2, 3]]), ([[]], []), ([["x"]], []), ([["a", "b"]], [["a", "b"]]), ([[4, 4, 5, 6]], [[4, 4], [4, 5], [5, 6]])]),
    dict(split="train", difficulty="medium", task="groups the ascending list of distinct integers `nums` into runs of consecutive integers (each number exactly one more than the previous one) and returns the list of runs.", ref="""
def group_consecutive(nums: list[int]) -> list[list[int]]:
    runs = []
    for x in nums:
        if runs and runs[-1][-1] + 1 == x:
            runs[-1].append(x)
        else:
            runs.append([x])
    return runs
""", cases=[([[1, 2, 3, 5, 6, 9]], [[1, 2, 3], [5, 6], [9]]), ([[]], []), ([[4]], [[4]]), ([[1, 3, 5]], [[1], [3], [5]]), ([[-2, -1, 0, 2]], [[-2, -1, 0], [2]])]),
    dict(split="train", difficulty="easy", task="returns True if `nums` contains each of the integers 1 to n exactly once, where n is the length of `nums` (True for an empty list), and False otherwise.", ref="""
def is_permutation_of_range(nums: list[int]) -> bool:
    return sorted(nums) == list(range(1, len(nums) + 1))
""", cases=[([[3, 1, 2]], True), ([[1, 2, 2]], False), ([[]], True), ([[0, 1, 2]], False), ([[2, 3, 4]], False), ([[1]], True)]),
    dict(split="train", difficulty="medium", task="returns True if the list `b` can be obtained from the list `a` by a rotation (moving some number of items, possibly none, from the front of `a` to its back) and False otherwise; two empty lists count as rotations of each other.", ref="""
def is_rotation_of(a: list, b: list) -> bool:
    return len(a) == len(b) and any(a[i:] + a[:i] == b for i in range(len(a) + 1))
""", cases=[([[1, 2, 3, 4], [3, 4, 1, 2]], True), ([[1, 2, 3], [1, 3, 2]], False), ([[], []], True), ([[1, 2], [1, 2]], True), ([[1, 2, 3], [3, 1, 2]], True), ([[1, 1, 2], [1, 2]], False), ([[5], [5]], True)],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns `[first_half, second_half]`: the first half holds the first (n + 1) // 2 items of `items` (n is its length) and the second half the rest, so with an odd length the middle item goes to the first half.", ref="""
def split_in_half(items: list) -> list[list]:
    mid = (len(items) + 1) // 2
    return [items[:mid], items[mid:]]
""", cases=[([[1, 2, 3, 4, 5]], [[1, 2, 3], [4, 5]]), ([[1, 2, 3, 4]], [[1, 2], [3, 4]]), ([[]], [[], []]), ([["a"]], [["a"], []]), ([[1, 2]], [[1], [2]]), ([[1, 2, 3, 4, 5, 6, 7]], [[1, 2, 3, 4], [5, 6, 7]])]),
    dict(split="train", difficulty="easy", task="returns a new list with all zeros of `nums` moved to the end, the other numbers keeping their relative order.", ref="""
def move_zeros_to_end(nums: list[int]) -> list[int]:
    return [x for x in nums if x != 0] + [x for x in nums if x == 0]
""", cases=[([[0, 1, 0, 3, 12]], [1, 3, 12, 0, 0]), ([[]], []), ([[0, 0]], [0, 0]), ([[1, -1, 2]], [1, -1, 2]), ([[1, 0, -1, 0, 2]], [1, -1, 2, 0, 0])]),
    dict(split="train", difficulty="medium", task="splits `items` into consecutive groups of `k` items (the last group may be shorter), reverses the order of the items inside each group, and returns the groups joined back into one list (`k` >= 1).", ref="""
def reverse_in_groups(items: list, k: int) -> list:
    return [x for i in range(0, len(items), k) for x in items[i:i + k][::-1]]
""", cases=[([[1, 2, 3, 4, 5, 6, 7], 3], [3, 2, 1, 6, 5, 4, 7]), ([[1, 2, 3], 1], [1, 2, 3]), ([[], 2], []), ([[1, 2], 5], [2, 1]), ([["a", "b", "c", "d"], 2], ["b", "a", "d", "c"])]),
    dict(split="train", difficulty="easy", task="returns a new list equal to `items` except that the part from index `i` to index `j` inclusive is reversed (0 <= `i` <= `j` < len(items)).", ref="""
def reverse_sublist(items: list, i: int, j: int) -> list:
    return items[:i] + items[i:j + 1][::-1] + items[j + 1:]
""", cases=[([[1, 2, 3, 4, 5], 1, 3], [1, 4, 3, 2, 5]), ([[1, 2, 3], 0, 2], [3, 2, 1]), ([[1, 2, 3], 1, 1], [1, 2, 3]), ([["a", "b", "c", "d"], 0, 1], ["b", "a", "c", "d"]), ([[9, 8, 7, 6], 2, 3], [9, 8, 6, 7])]),
    dict(split="train", difficulty="hard", task="simulates people numbered 1 to `n` standing in a circle: counting starts at person 1, every `k`-th person counted is removed, and counting goes on from the person after the one removed. Return the numbers of the people in the order they are removed (`n` >= 0, `k` >= 1).", ref="""
def elimination_order(n: int, k: int) -> list[int]:
    people = list(range(1, n + 1))
    out, i = [], 0
    while people:
        i = (i + k - 1) % len(people)
        out.append(people.pop(i))
    return out
""", cases=[([7, 3], [3, 6, 2, 7, 5, 1, 4]), ([0, 2], []), ([1, 5], [1]), ([4, 1], [1, 2, 3, 4]), ([5, 2], [2, 4, 1, 5, 3])]),
    dict(split="train", difficulty="medium", task="returns the numbers of `nums` sorted so that more frequent values come first; values that are equally frequent are ordered by value, ascending (each value appears as many times as in `nums`).", ref="""
def sort_by_frequency(nums: list[int]) -> list[int]:
    return sorted(nums, key=lambda x: (-nums.count(x), x))
""", cases=[([[4, 6, 2, 6, 4, 4]], [4, 4, 4, 6, 6, 2]), ([[]], []), ([[3, 1, 2]], [1, 2, 3]), ([[5, 5, 1, 1]], [1, 1, 5, 5]), ([[-1, 2, 2]], [2, 2, -1])]),
    dict(split="train", difficulty="easy", task="returns a list of length `n` made by repeating the items of the non-empty list `items` cyclically from its start (`n` = 0 gives []).", ref="""
def cycle_to_length(items: list, n: int) -> list:
    return [items[i % len(items)] for i in range(n)]
""", cases=[([[1, 2, 3], 7], [1, 2, 3, 1, 2, 3, 1]), ([["a"], 3], ["a", "a", "a"]), ([[1, 2], 0], []), ([[4, 5, 6], 2], [4, 5]), ([["x", "y"], 4], ["x", "y", "x", "y"])]),
    dict(split="train", difficulty="easy", task="returns the numbers of `nums` sorted by absolute value, smallest first; numbers with the same absolute value keep their original order.", ref="""
def sort_by_abs(nums: list[int]) -> list[int]:
    return sorted(nums, key=abs)
""", cases=[([[-5, 2, -1, 4]], [-1, 2, 4, -5]), ([[]], []), ([[3, -3, 2]], [2, 3, -3]), ([[-2, 2, -2]], [-2, 2, -2]), ([[0, -1, 1]], [0, -1, 1])]),
    dict(split="train", difficulty="medium", task="returns the numbers of `nums` that are strictly greater than every number to their right, in their original order (the last number always qualifies; [] for an empty list).", ref="""
def leaders(nums: list[int]) -> list[int]:
    out = []
    best = None
    for x in reversed(nums):
        if best is None or x > best:
            out.append(x)
            best = x
    return out[::-1]
""", cases=[([[16, 17, 4, 3, 5, 2]], [17, 5, 2]), ([[]], []), ([[1, 2, 3]], [3]), ([[3, 2, 1]], [3, 2, 1]), ([[5, 5]], [5]), ([[2, 7, 7, 1]], [7, 1])]),
    dict(split="train", difficulty="easy", task="returns the strings of `words` sorted alphabetically ignoring upper/lower case; strings that are equal when case is ignored keep their original order.", ref="""
def sort_case_insensitive(words: list[str]) -> list[str]:
    return sorted(words, key=str.lower)
""", cases=[([["banana", "Apple", "cherry"]], ["Apple", "banana", "cherry"]), ([[]], []), ([["b", "B", "a"]], ["a", "b", "B"]), ([["Zed", "alpha"]], ["alpha", "Zed"]), ([["x"]], ["x"])]),
    dict(split="train", difficulty="easy", task="returns the two-element lists of `pairs` sorted by their second element, ascending, and by their first element when the second elements are equal.", ref="""
def sort_pairs_by_second(pairs: list[list[int]]) -> list[list[int]]:
    return sorted(pairs, key=lambda p: (p[1], p[0]))
""", cases=[([[[1, 3], [2, 1], [3, 2]]], [[2, 1], [3, 2], [1, 3]]), ([[]], []), ([[[5, 1], [2, 1], [3, 0]]], [[3, 0], [2, 1], [5, 1]]), ([[[1, 1]]], [[1, 1]]), ([[[2, 2], [1, 2]]], [[1, 2], [2, 2]])]),
    dict(split="train", difficulty="medium", task="splits `items` into exactly `n` consecutive parts whose lengths differ by at most one, the longer parts coming first, and returns the list of parts (`n` >= 1; some parts are empty when `n` exceeds the length).", ref="""
def split_into_parts(items: list, n: int) -> list[list]:
    size, extra = divmod(len(items), n)
    parts, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        parts.append(items[start:end])
        start = end
    return parts
""", cases=[([[1, 2, 3, 4, 5, 6, 7], 3], [[1, 2, 3], [4, 5], [6, 7]]), ([[1, 2], 4], [[1], [2], [], []]), ([[], 2], [[], []]), ([[1, 2, 3, 4], 2], [[1, 2], [3, 4]]), ([[1, 2, 3], 1], [[1, 2, 3]]), ([["a", "b", "c", "d", "e"], 2], [["a", "b", "c"], ["d", "e"]])]),
    dict(split="train", difficulty="easy", task="returns the `k` largest numbers of `nums` in descending order (duplicates count separately; all of `nums` if `k` exceeds its length; `k` >= 0).", ref="""
def top_k(nums: list[int], k: int) -> list[int]:
    return sorted(nums, reverse=True)[:k]
""", cases=[([[4, 1, 7, 3, 7], 3], [7, 7, 4]), ([[1, 2], 5], [2, 1]), ([[5, 3], 0], []), ([[], 2], []), ([[-1, -5, -3], 2], [-1, -3])]),
    dict(split="train", difficulty="hard", task="returns True if you can get from index 0 to the last index of the non-empty list `jumps`, where from index i you may move forward by any number of places from 1 to `jumps[i]` (a 0 means you cannot move on from there), and False otherwise.", ref="""
def can_reach_end(jumps: list[int]) -> bool:
    reach = 0
    for i, j in enumerate(jumps):
        if i > reach:
            return False
        reach = max(reach, i + j)
    return True
""", cases=[([[2, 3, 1, 1, 4]], True), ([[3, 2, 1, 0, 4]], False), ([[0]], True), ([[1, 0, 1]], False), ([[2, 0, 0]], True), ([[1, 1, 0, 1]], False), ([[0, 1]], False)]),
    dict(split="train", difficulty="medium", task="returns the sums of the numbers paired up from both ends, `nums[0] + nums[-1]`, `nums[1] + nums[-2]`, and so on; with an odd length the middle number, paired with nothing, is added on its own as the last element.", ref="""
def fold_sums(nums: list[int]) -> list[int]:
    n = len(nums)
    out = [nums[i] + nums[n - 1 - i] for i in range(n // 2)]
    if n % 2:
        out.append(nums[n // 2])
    return out
""", cases=[([[1, 2, 3, 4, 5]], [6, 6, 3]), ([[1, 2, 3, 4]], [5, 5]), ([[]], []), ([[7]], [7]), ([[10, -10]], [0]), ([[1, 2, 3, 4, 5, 6]], [7, 7, 7])]),
    dict(split="train", difficulty="easy", task="returns the items of `a` that do not occur anywhere in `b`, in their original order and keeping repeats.", ref="""
def difference_in_order(a: list, b: list) -> list:
    return [x for x in a if x not in b]
""", cases=[([[1, 2, 3, 2, 4], [2, 5]], [1, 3, 4]), ([[], [1]], []), ([[1, 1], []], [1, 1]), ([["a", "b"], ["a", "b"]], []), ([[3, 1, 3], [1]], [3, 3])]),
    dict(split="train", difficulty="easy", task="returns a new list equal to `items` without the item at index `i`; if `i` is not an index from 0 to len(items) - 1 (negative values included), it returns an unchanged copy.", ref="""
def remove_at(items: list, i: int) -> list:
    return [x for j, x in enumerate(items) if j != i]
""", cases=[([[1, 2, 3, 4], 1], [1, 3, 4]), ([[1, 2], 5], [1, 2]), ([[1, 2], -1], [1, 2]), ([[], 0], []), ([["a"], 0], [])]),
    dict(split="train", difficulty="medium", task="returns the smallest positive integer (1, 2, 3, ...) that does not occur in `nums`.", ref="""
def first_missing_positive(nums: list[int]) -> int:
    present = set(nums)
    k = 1
    while k in present:
        k += 1
    return k
""", cases=[([[3, 4, -1, 1]], 2), ([[]], 1), ([[1, 2, 3]], 4), ([[2, 3]], 1), ([[0, -5, 1, 1]], 2), ([[7, 8, 9]], 1)]),
    dict(split="train", difficulty="easy", task="returns a new list equal to `items` with its first and last items exchanged (a list with fewer than two items is returned unchanged).", ref="""
def swap_first_last(items: list) -> list:
    if len(items) < 2:
        return list(items)
    return [items[-1]] + items[1:-1] + [items[0]]
""", cases=[([[1, 2, 3, 4]], [4, 2, 3, 1]), ([[1, 2]], [2, 1]), ([[7]], [7]), ([[]], []), ([["a", "b", "c"]], ["c", "b", "a"]), ([[1, 2, 3, 4, 5]], [5, 2, 3, 4, 1])]),
    dict(split="train", difficulty="medium", task="returns a copy of `items` in which every None is replaced by the nearest item before it that is not None; a None with no such earlier item stays None (other values such as 0 are kept as they are).", ref="""
def forward_fill(items: list) -> list:
    out, last = [], None
    for x in items:
        if x is not None:
            last = x
        out.append(last)
    return out
""", cases=[([[1, None, None, 4, None]], [1, 1, 1, 4, 4]), ([[None, 2]], [None, 2]), ([[]], []), ([[None]], [None]), ([["a", None, "b"]], ["a", "a", "b"]), ([[0, None]], [0, 0])]),
    dict(split="train", difficulty="easy", task="returns the item of `items` at index (len(items) - 1) // 2, which is the middle item for an odd length and the left one of the two middle items for an even length; None if `items` is empty.", ref="""
def middle_element(items: list):
    return items[(len(items) - 1) // 2] if items else None
""", cases=[([[1, 2, 3, 4, 5]], 3), ([[1, 2, 3, 4]], 2), ([[]], None), ([["a"]], "a"), ([["a", "b"]], "a"), ([[1, 2, 3, 4, 5, 6, 7, 8]], 4)]),
    dict(split="train", difficulty="easy", task="returns the last `n` items of `items` in their original order (`n` >= 0): all of the items if `n` exceeds the length, and [] if `n` is 0.", ref="""
def last_n(items: list, n: int) -> list:
    return items[max(len(items) - n, 0):]
""", cases=[([[1, 2, 3, 4, 5], 2], [4, 5]), ([[1, 2, 3], 0], []), ([[1, 2], 5], [1, 2]), ([[], 3], []), ([["a", "b", "c"], 3], ["a", "b", "c"]), ([[1, 2, 3], 4], [1, 2, 3])]),
    dict(split="train", difficulty="medium", task="returns the smallest distance `j - i` between two positions i < j of `items` that hold equal items, or -1 if all items are distinct.", ref="""
def min_distance_equal(items: list) -> int:
    last, dists = {}, []
    for i, x in enumerate(items):
        if x in last:
            dists.append(i - last[x])
        last[x] = i
    return min(dists, default=-1)
""", cases=[([[3, 1, 4, 1, 5, 3]], 2), ([[1, 2, 3]], -1), ([[]], -1), ([[7, 7]], 1), ([[1, 2, 1, 1]], 1), ([["a", "b", "a"]], 2), ([[5, 0, 9, 5, 0, 5]], 2)]),
    dict(split="train", difficulty="hard", task="returns the length of the longest sequence of consecutive integers x, x + 1, x + 2, ... whose values all occur in `nums`, in any order and ignoring duplicates (0 for an empty list).", ref="""
def longest_consecutive_length(nums: list[int]) -> int:
    values = set(nums)
    best = 0
    for x in values:
        if x - 1 not in values:
            length = 1
            while x + length in values:
                length += 1
            best = max(best, length)
    return best
""", cases=[([[100, 4, 200, 1, 3, 2]], 4), ([[]], 0), ([[5, 5, 5]], 1), ([[1, 3, 5]], 1), ([[0, -1, 1, 2, 7, 8]], 4), ([[10, 9, 8, 1]], 3), ([[1, 3, 4, 5]], 3)],
         survivors=["line 6: value -> 0"]),
    dict(split="train", difficulty="easy", task="returns the items of `items` that come before the first occurrence of `stop` (all of `items` if `stop` does not occur).", ref="""
def prefix_until(items: list, stop) -> list:
    return items[:items.index(stop)] if stop in items else list(items)
""", cases=[([[3, 1, 4, 1, 5], 4], [3, 1]), ([[1, 2, 3], 9], [1, 2, 3]), ([[5, 6], 5], []), ([[], 1], []), ([["a", "b", "a"], "b"], ["a"])]),
    dict(split="train", difficulty="easy", task="returns a list of `[value, count]` pairs, one for each distinct value of `nums`, sorted by value ascending, where count is how many times the value occurs in `nums`.", ref="""
def value_counts(nums: list[int]) -> list[list[int]]:
    return [[v, nums.count(v)] for v in sorted(set(nums))]
""", cases=[([[3, 1, 3, 2, 3]], [[1, 1], [2, 1], [3, 3]]), ([[]], []), ([[5]], [[5, 1]]), ([[-1, -1, 0]], [[-1, 2], [0, 1]]), ([[2, 2, 2, 2]], [[2, 4]])]),
    dict(split="train", difficulty="medium", task="returns the number of index pairs i < j with `items[i] == items[j]`.", ref="""
def equal_pairs_count(items: list) -> int:
    return sum(items[i] == items[j] for i in range(len(items)) for j in range(i + 1, len(items)))
""", cases=[([[1, 2, 1, 1, 3, 2]], 4), ([[]], 0), ([[5]], 0), ([[1, 2, 3]], 0), ([[7, 7, 7, 7]], 6), ([["a", "a"]], 1)]),
    dict(split="train", difficulty="easy", task="returns the list of every index at which the largest value of `nums` occurs, in increasing order ([] for an empty list).", ref="""
def indices_of_max(nums: list[int]) -> list[int]:
    return [i for i, x in enumerate(nums) if x == max(nums)]
""", cases=[([[3, 7, 2, 7, 1]], [1, 3]), ([[]], []), ([[5]], [0]), ([[-1, -1, -2]], [0, 1]), ([[1, 2, 3]], [2])]),
    dict(split="train", difficulty="medium", task="returns True if `nums` forms a mountain: it has at least three numbers, strictly increases up to a peak that is neither its first nor its last number, and strictly decreases after the peak (equal neighbours are not allowed anywhere); False otherwise.", ref="""
def is_mountain(nums: list[int]) -> bool:
    i, n = 0, len(nums)
    while i + 1 < n and nums[i] < nums[i + 1]:
        i += 1
    if i == 0 or i == n - 1:
        return False
    while i + 1 < n and nums[i] > nums[i + 1]:
        i += 1
    return i == n - 1
""", cases=[([[1, 3, 5, 4, 2]], True), ([[1, 2, 3]], False), ([[3, 2, 1]], False), ([[1, 2, 2, 1]], False), ([[1, 3, 2]], True), ([[]], False), ([[5]], False), ([[1, 2, 1, 2, 1]], False), ([[0, 10, 9, 8, 7, 1]], True), ([[1, 5, 5]], False), ([[2, 2, 1]], False)],
         survivors=["line 3: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns `items` extended at the end with copies of `fill` until it has length `n`; a list that already has at least `n` items is returned unchanged.", ref="""
def pad_list(items: list, n: int, fill) -> list:
    return items + [fill] * (n - len(items))
""", cases=[([[1, 2], 5, 0], [1, 2, 0, 0, 0]), ([[1, 2, 3], 2, 0], [1, 2, 3]), ([[], 2, "x"], ["x", "x"]), ([["a"], 1, "b"], ["a"]), ([[4], 3, None], [4, None, None])]),
    dict(split="train", difficulty="easy", task="returns the numbers of `nums` rearranged so that all numbers smaller than `pivot` come first, then the ones equal to `pivot`, then the larger ones, each group keeping its original order.", ref="""
def partition_around(nums: list[int], pivot: int) -> list[int]:
    return [x for x in nums if x < pivot] + [x for x in nums if x == pivot] + [x for x in nums if x > pivot]
""", cases=[([[5, 1, 8, 5, 3, 9], 5], [1, 3, 5, 5, 8, 9]), ([[], 1], []), ([[2, 2], 2], [2, 2]), ([[9, -1, 4], 3], [-1, 9, 4]), ([[3, 1, 2], 0], [3, 1, 2])]),
    dict(split="train", difficulty="medium", task="returns True if `nums` zigzags: for every three neighbouring numbers, the step from the first to the second and the step from the second to the third are both non-zero and go in opposite directions (one up, one down); lists with fewer than three numbers count as zigzags.", ref="""
def is_zigzag(nums: list[int]) -> bool:
    return all((b - a) * (c - b) < 0 for a, b, c in zip(nums, nums[1:], nums[2:]))
""", cases=[([[1, 3, 2, 4, 1]], True), ([[1, 2, 3]], False), ([[5]], True), ([[]], True), ([[4, 4]], True), ([[0, 1, 0]], True), ([[3, 1, 2, 2]], False), ([[5, 1, 4, 2, 3]], True), ([[2, 2, 1]], False)]),
    dict(split="train", difficulty="hard", task="returns the minimum number of swaps (each exchanging two items) needed to sort the list of distinct numbers `nums` in ascending order.", ref="""
def min_swaps_to_sort(nums: list[int]) -> int:
    a = list(nums)
    s = sorted(a)
    swaps = 0
    for i in range(len(a)):
        while a[i] != s[i]:
            j = s.index(a[i])
            a[i], a[j] = a[j], a[i]
            swaps += 1
    return swaps
""", cases=[([[4, 3, 2, 1]], 2), ([[1, 5, 4, 3, 2]], 2), ([[]], 0), ([[1, 2, 3]], 0), ([[2, 3, 1]], 2), ([[7]], 0), ([[2, 1, 4, 3]], 2)]),
    dict(split="train", difficulty="easy", task="returns the largest product of two neighbouring numbers of `nums` (which contains at least two numbers).", ref="""
def max_adjacent_product(nums: list[int]) -> int:
    return max(a * b for a, b in zip(nums, nums[1:]))
""", cases=[([[3, 6, -2, -5, 7, 3]], 21), ([[1, 2]], 2), ([[-4, -5, 1]], 20), ([[0, 0, 0]], 0), ([[2, 9, 1, 9]], 18)]),
    dict(split="train", difficulty="medium", task="returns a list in which element i is the mean of `nums[i]` and its existing neighbours `nums[i - 1]` and `nums[i + 1]`, rounded down with floor division (the first and last numbers have only one neighbour).", ref="""
def smooth_values(nums: list[int]) -> list[int]:
    out = []
    for i in range(len(nums)):
        part = nums[max(i - 1, 0):i + 2]
        out.append(sum(part) // len(part))
    return out
""", cases=[([[3, 6, 9, 12]], [4, 6, 9, 10]), ([[]], []), ([[5]], [5]), ([[1, 2]], [1, 1]), ([[10, 0, 10, 0]], [5, 6, 3, 5]), ([[-3, 0, 0]], [-2, -1, 0])]),
    dict(split="train", difficulty="easy", task="returns the sums of every run of `k` consecutive numbers of `nums`, from left to right (`k` >= 1; [] if `nums` has fewer than `k` numbers).", ref="""
def window_sums(nums: list[int], k: int) -> list[int]:
    return [sum(nums[i:i + k]) for i in range(len(nums) - k + 1)]
""", cases=[([[1, 2, 3, 4, 5], 2], [3, 5, 7, 9]), ([[1, 2, 3], 3], [6]), ([[1, 2], 3], []), ([[5, -1, 2], 1], [5, -1, 2]), ([[], 1], []), ([[1, 1, 1, 1], 2], [2, 2, 2])]),
    dict(split="train", difficulty="easy", task="returns the list of indices of `nums` ordered so that the numbers at those indices are in ascending order; equal numbers keep the order of their indices.", ref="""
def argsort_indices(nums: list[int]) -> list[int]:
    return sorted(range(len(nums)), key=lambda i: nums[i])
""", cases=[([[30, 10, 20]], [1, 2, 0]), ([[]], []), ([[5, 5, 1]], [2, 0, 1]), ([[1, 2, 3]], [0, 1, 2]), ([[-1, -3, -2, 0]], [1, 2, 0, 3])]),
    dict(split="train", difficulty="medium", task="returns a list whose element i is the number of distinct values among `items[0]` to `items[i]`.", ref="""
def cumulative_distinct_count(items: list) -> list[int]:
    seen, out = set(), []
    for x in items:
        seen.add(x)
        out.append(len(seen))
    return out
""", cases=[([[1, 2, 1, 3, 2, 4]], [1, 2, 2, 3, 3, 4]), ([[]], []), ([["a", "a", "a"]], [1, 1, 1]), ([[5, 6]], [1, 2]), ([[0]], [1])]),
    dict(split="train", difficulty="easy", task="returns the first number of `nums` that is strictly greater than `t`, or None if there is none.", ref="""
def first_greater(nums: list[int], t: int) -> int | None:
    return next((x for x in nums if x > t), None)
""", cases=[([[1, 5, 3, 8], 4], 5), ([[1, 2], 5], None), ([[], 0], None), ([[3, 4], 3], 4), ([[-2, -1], -3], -2)]),
    dict(split="train", difficulty="medium", task="returns the first index at which the list `sub` occurs as a contiguous run of items inside `items`, or -1 if it never does; an empty `sub` occurs at index 0.", ref="""
def sublist_index(items: list, sub: list) -> int:
    for i in range(len(items) - len(sub) + 1):
        if items[i:i + len(sub)] == sub:
            return i
    return -1
""", cases=[([[1, 2, 3, 2, 3, 4], [2, 3, 4]], 3), ([[1, 2, 3], [3, 2]], -1), ([[1, 2], []], 0), ([[], []], 0), ([[1], [1, 2]], -1), ([[5, 5, 5], [5, 5]], 0), ([[1, 2, 3], [3]], 2)],
         survivors=["line 2: op -> Add", "line 2: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns True if all differences between neighbouring numbers of `nums` are equal (True for lists with fewer than three numbers) and False otherwise.", ref="""
def is_arithmetic(nums: list[int]) -> bool:
    return len({b - a for a, b in zip(nums, nums[1:])}) <= 1
""", cases=[([[3, 7, 11, 15]], True), ([[1, 2, 4]], False), ([[5]], True), ([[]], True), ([[9, 6, 3, 0]], True), ([[1, 1, 1]], True), ([[1, 3, 5, 8]], False)]),
    dict(split="train", difficulty="easy", task="returns the number of the non-empty list `nums` that is closest to `target`; if two numbers are equally close, it returns the smaller one.", ref="""
def closest_value(nums: list[int], target: int) -> int:
    return min(nums, key=lambda x: (abs(x - target), x))
""", cases=[([[1, 5, 9, 12], 10], 9), ([[4, 6], 5], 4), ([[6, 4], 5], 4), ([[7], -3], 7), ([[-2, 3, 2], 0], -2), ([[10, 20, 30], 26], 30)]),
    dict(split="train", difficulty="hard", task="returns the largest sum of numbers chosen from `nums` such that no two chosen numbers are neighbours in the list; choosing no number at all is allowed, so the result is at least 0.", ref="""
def max_non_adjacent_sum(nums: list[int]) -> int:
    take = skip = 0
    for x in nums:
        take, skip = skip + x, max(take, skip)
    return max(take, skip)
""", cases=[([[3, 2, 7, 10]], 13), ([[]], 0), ([[-5, -1]], 0), ([[5]], 5), ([[2, 1, 1, 2]], 4), ([[5, 1, 1, 5]], 10), ([[1, 2, 3, 1]], 4)]),
    dict(split="train", difficulty="medium", task="performs one left-to-right pass of bubble sort on a copy of `nums`: for each i from 0 to len(nums) - 2, the numbers at positions i and i + 1 are swapped if the one at i is strictly greater. Return the resulting list.", ref="""
def bubble_pass(nums: list[int]) -> list[int]:
    out = list(nums)
    for i in range(len(out) - 1):
        if out[i] > out[i + 1]:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out
""", cases=[([[5, 1, 4, 2, 8]], [1, 4, 2, 5, 8]), ([[]], []), ([[1]], [1]), ([[3, 2, 1]], [2, 1, 3]), ([[1, 2, 3]], [1, 2, 3]), ([[2, 2, 1]], [2, 1, 2])],
         survivors=["line 4: ops -> GtE"]),
    dict(split="train", difficulty="easy", task="returns the item that follows the first occurrence of `x` in `items`, wrapping around to the first item when that occurrence is the last item; None if `x` does not occur.", ref="""
def circular_next(items: list, x):
    return items[(items.index(x) + 1) % len(items)] if x in items else None
""", cases=[([["mon", "tue", "wed"], "tue"], "wed"), ([["mon", "tue", "wed"], "wed"], "mon"), ([[1, 2, 3], 4], None), ([[], 1], None), ([[5], 5], 5), ([[1, 2, 1], 1], 2)]),
    dict(split="train", difficulty="easy", task="returns the sum of the numbers that occur exactly once in `nums` (0 if there are none).", ref="""
def sum_of_unique(nums: list[int]) -> int:
    return sum(x for x in nums if nums.count(x) == 1)
""", cases=[([[1, 2, 2, 3, 4, 4, 4]], 4), ([[]], 0), ([[5, 5]], 0), ([[7]], 7), ([[1, 2, 3]], 6), ([[3, 3, 1]], 1)]),
    dict(split="train", difficulty="medium", task="returns the length of the shortest contiguous part of `nums` which, if sorted on its own, would leave the whole list sorted in ascending order (0 if `nums` is already sorted).", ref="""
def shortest_unsorted_length(nums: list[int]) -> int:
    s = sorted(nums)
    diff = [i for i in range(len(nums)) if nums[i] != s[i]]
    return diff[-1] - diff[0] + 1 if diff else 0
""", cases=[([[2, 6, 4, 8, 10, 9, 15]], 5), ([[1, 2, 3]], 0), ([[]], 0), ([[3, 2, 1]], 3), ([[1, 3, 2, 4]], 2), ([[1, 2, 2, 1, 5]], 3)]),
    dict(split="train", difficulty="easy", task="returns the largest difference between two consecutive values of `nums` after sorting it in ascending order (0 if `nums` has fewer than two numbers).", ref="""
def max_gap_sorted(nums: list[int]) -> int:
    s = sorted(nums)
    return max((b - a for a, b in zip(s, s[1:])), default=0)
""", cases=[([[9, 1, 4, 15]], 6), ([[5]], 0), ([[]], 0), ([[3, 3, 3]], 0), ([[-10, 0, 2]], 10)]),
    dict(split="train", difficulty="medium", task="returns the smallest total amount that must be added to the numbers of `nums` (each number may only be increased, never decreased) so that every number becomes strictly greater than the one before it.", ref="""
def min_increments_sorted(nums: list[int]) -> int:
    total, prev = 0, None
    for x in nums:
        if prev is not None and x <= prev:
            total += prev + 1 - x
            x = prev + 1
        prev = x
    return total
""", cases=[([[1, 5, 2, 8]], 4), ([[3, 2, 1]], 6), ([[1, 1, 2]], 2), ([[]], 0), ([[1, 2, 3]], 0), ([[5]], 0), ([[2, 2, 2, 2]], 6)]),
    dict(split="train", difficulty="easy", task="returns `items[i]` if `i` is a valid index from 0 to len(items) - 1, and `default` otherwise (a negative `i` counts as invalid).", ref="""
def safe_get(items: list, i: int, default):
    return items[i] if 0 <= i < len(items) else default
""", cases=[([[10, 20, 30], 1, -1], 20), ([[10, 20, 30], 3, -1], -1), ([[10, 20, 30], -1, 0], 0), ([[], 0, "none"], "none"), ([["a"], 0, "z"], "a"), ([[1, 2], 2, 9], 9)]),
    dict(split="train", difficulty="hard", task="repeatedly removes the two smallest numbers of `nums` and puts their sum back into the list, paying a cost equal to that sum each time, until a single number remains; returns the total cost (0 for fewer than two numbers).", ref="""
def merge_cost(nums: list[int]) -> int:
    import heapq
    heap = list(nums)
    heapq.heapify(heap)
    cost = 0
    while len(heap) > 1:
        s = heapq.heappop(heap) + heapq.heappop(heap)
        cost += s
        heapq.heappush(heap, s)
    return cost
""", cases=[([[4, 3, 2, 6]], 29), ([[]], 0), ([[7]], 0), ([[1, 1]], 2), ([[1, 2, 3]], 9), ([[5, 5, 5, 5]], 40)]),
    dict(split="train", difficulty="easy", task="returns, for each non-negative number `x` of `nums`, its share of the total of `nums` as a whole percentage rounded down, `x * 100 // total` (the total is always positive).", ref="""
def percent_of_total(nums: list[int]) -> list[int]:
    return [x * 100 // sum(nums) for x in nums]
""", cases=[([[1, 1, 2]], [25, 25, 50]), ([[1, 2]], [33, 66]), ([[5]], [100]), ([[0, 3]], [0, 100]), ([[1, 1, 1, 7]], [10, 10, 10, 70]), ([[2, 3, 4]], [22, 33, 44])]),
    dict(split="train", difficulty="medium", task="packs the positive numbers of `weights` into batches, in order: each number joins the current batch if the batch total stays at most `limit`, and otherwise starts a new batch (no single weight exceeds `limit`). Return the list of batches.", ref="""
def pack_batches(weights: list[int], limit: int) -> list[list[int]]:
    batches = []
    for w in weights:
        if batches and sum(batches[-1]) + w <= limit:
            batches[-1].append(w)
        else:
            batches.append([w])
    return batches
""", cases=[([[4, 3, 2, 5, 1], 7], [[4, 3], [2, 5], [1]]), ([[], 5], []), ([[5, 5], 5], [[5], [5]]), ([[1, 1, 1], 3], [[1, 1, 1]]), ([[2, 3, 4], 5], [[2, 3], [4]]), ([[3], 3], [[3]])]),
    dict(split="train", difficulty="easy", task="returns a list with `sep` inserted between every two neighbouring items of `items` (no `sep` at either end; [] for an empty list).", ref="""
def intersperse(items: list, sep) -> list:
    out = []
    for x in items:
        if out:
            out.append(sep)
        out.append(x)
    return out
""", cases=[([[1, 2, 3], 0], [1, 0, 2, 0, 3]), ([[], 0], []), ([["a"], "-"], ["a"]), ([["a", "b"], "+"], ["a", "+", "b"]), ([[5, 5], 5], [5, 5, 5])]),
    dict(split="train", difficulty="medium", task="counts the non-negative numbers of `nums` in buckets of size `width`, where bucket k holds the numbers from k * width to (k + 1) * width - 1, and returns the list of counts for buckets 0 up to the bucket of the largest number ([] for an empty list).", ref="""
def bucket_counts(nums: list[int], width: int) -> list[int]:
    if not nums:
        return []
    counts = [0] * (max(nums) // width + 1)
    for x in nums:
        counts[x // width] += 1
    return counts
""", cases=[([[1, 12, 5, 25, 7], 10], [3, 1, 1]), ([[], 5], []), ([[0], 3], [1]), ([[3, 3, 6], 3], [0, 2, 1]), ([[9, 10, 19, 20], 10], [1, 2, 1]), ([[4, 2], 1], [0, 0, 1, 0, 1])]),
    dict(split="train", difficulty="easy", task="returns the strings of `words` with leading and trailing whitespace removed, leaving out the ones that are empty after stripping, in their original order.", ref="""
def strip_all(words: list[str]) -> list[str]:
    return [w.strip() for w in words if w.strip()]
""", cases=[([["  a ", "", " b c", "   "]], ["a", "b c"]), ([[]], []), ([["x"]], ["x"]), ([["\tq\n"]], ["q"]), ([[" "]], [])]),
    dict(split="train", difficulty="easy", task="returns the sum of `nums[i]` through `nums[j]` inclusive for each query `[i, j]` in `queries` (0 <= i <= j < len(nums)), as a list in the order of the queries.", ref="""
def range_sums(nums: list[int], queries: list[list[int]]) -> list[int]:
    return [sum(nums[i:j + 1]) for i, j in queries]
""", cases=[([[1, 2, 3, 4, 5], [[0, 2], [1, 3], [4, 4]]], [6, 9, 5]), ([[5], [[0, 0]]], [5]), ([[1, -1, 2], [[0, 1], [0, 2], [2, 2]]], [0, 2, 2]), ([[3, 3], []], []), ([[2, 4, 6, 8], [[1, 2], [0, 3]]], [10, 20])]),
    dict(split="train", difficulty="medium", task="returns the first index `i` such that the running sum `nums[0] + ... + nums[i]` is at least `target`, or -1 if no running sum reaches it.", ref="""
def first_index_reaching(nums: list[int], target: int) -> int:
    total = 0
    for i, x in enumerate(nums):
        total += x
        if total >= target:
            return i
    return -1
""", cases=[([[2, 3, 1, 4], 6], 2), ([[1, 1], 5], -1), ([[5], 5], 0), ([[], 0], -1), ([[-1, 4, 2], 3], 1), ([[3, -5, 10], 4], 2)]),
    dict(split="train", difficulty="easy", task="returns the items of `items` sorted by the position of their value in the list `order` (every item occurs in `order`); items with equal values stay together.", ref="""
def custom_order_sort(items: list, order: list) -> list:
    return sorted(items, key=order.index)
""", cases=[([["b", "c", "a", "b"], ["c", "a", "b"]], ["c", "a", "b", "b"]), ([[], [1]], []), ([[3, 1, 2], [1, 2, 3]], [1, 2, 3]), ([[1, 2, 3], [3, 2, 1]], [3, 2, 1]), ([["x"], ["y", "x"]], ["x"])]),
    dict(split="train", difficulty="medium", task="returns the numbers of `nums` rearranged as: the smallest, the largest, the second smallest, the second largest, and so on, until every number has been used once.", ref="""
def min_max_alternate(nums: list[int]) -> list[int]:
    s = sorted(nums)
    out = []
    while s:
        out.append(s.pop(0))
        if s:
            out.append(s.pop())
    return out
""", cases=[([[5, 1, 4, 2, 3]], [1, 5, 2, 4, 3]), ([[]], []), ([[7]], [7]), ([[2, 1]], [1, 2]), ([[3, 3, 1, 1]], [1, 3, 1, 3]), ([[10, -5, 0, 7]], [-5, 10, 0, 7])]),
    dict(split="train", difficulty="easy", task="compares the equal-length lists `a` and `b` position by position and returns `[wins_a, wins_b]`: how many positions have `a[i] > b[i]` and how many have `b[i] > a[i]` (ties count for neither).", ref="""
def score_rounds(a: list[int], b: list[int]) -> list[int]:
    return [sum(x > y for x, y in zip(a, b)), sum(y > x for x, y in zip(a, b))]
""", cases=[([[3, 5, 2, 7], [4, 5, 1, 1]], [2, 1]), ([[], []], [0, 0]), ([[1, 1], [1, 1]], [0, 0]), ([[0], [9]], [0, 1]), ([[9, 8], [1, 2]], [2, 0])]),
    dict(split="train", difficulty="hard", task="returns the total of the sums of all contiguous, non-empty sub-lists of `nums` (0 for an empty list).", ref="""
def total_of_sublist_sums(nums: list[int]) -> int:
    n = len(nums)
    return sum(x * (i + 1) * (n - i) for i, x in enumerate(nums))
""", cases=[([[1, 2, 3]], 20), ([[]], 0), ([[5]], 5), ([[1, -1]], 0), ([[2, 0, 2]], 12), ([[4, 1]], 10)]),
    dict(split="train", difficulty="easy", task="returns the index at which `x` would be inserted into the ascending list `nums` to keep it sorted, placed before any items equal to `x` (this is the number of items of `nums` smaller than `x`).", ref="""
def insert_position(nums: list[int], x: int) -> int:
    return sum(1 for v in nums if v < x)
""", cases=[([[1, 3, 5, 7], 4], 2), ([[1, 3, 5, 7], 5], 2), ([[], 3], 0), ([[1, 2], 9], 2), ([[2, 2, 2], 2], 0), ([[4, 6], 1], 0)]),
    dict(split="train", difficulty="medium", task="returns `nums` with all leading and trailing zeros removed (zeros between other numbers stay; a list of only zeros gives []).", ref="""
def trim_zeros(nums: list[int]) -> list[int]:
    start, end = 0, len(nums)
    while start < end and nums[start] == 0:
        start += 1
    while end > start and nums[end - 1] == 0:
        end -= 1
    return nums[start:end]
""", cases=[([[0, 0, 1, 0, 2, 0]], [1, 0, 2]), ([[0, 0]], []), ([[]], []), ([[3]], [3]), ([[0, 5]], [5]), ([[5, 0]], [5]), ([[1, 0, 0, 1]], [1, 0, 0, 1])]),
    dict(split="train", difficulty="easy", task="returns `items` followed by the items of `items` in reverse order, so the result reads the same forwards and backwards ([] for an empty list).", ref="""
def mirror_list(items: list) -> list:
    return items + items[::-1]
""", cases=[([[1, 2, 3]], [1, 2, 3, 3, 2, 1]), ([[]], []), ([["a"]], ["a", "a"]), ([[1, 1, 2]], [1, 1, 2, 2, 1, 1]), ([["x", "y"]], ["x", "y", "y", "x"])]),
    dict(split="train", difficulty="easy", task="returns how many positions i of `nums` hold the value i itself, i.e. `nums[i] == i` with indices counted from 0.", ref="""
def count_fixed_points(nums: list[int]) -> int:
    return sum(x == i for i, x in enumerate(nums))
""", cases=[([[0, 2, 2, 5, 4]], 3), ([[]], 0), ([[1, 0]], 0), ([[0, 1, 2]], 3), ([[-1, 1]], 1)]),
    dict(split="train", difficulty="medium", task="returns the sum of two numbers at different positions of `nums` (which has at least two numbers) that is closest to `target`; if two such sums are equally close, it returns the smaller sum.", ref="""
def pair_sum_closest(nums: list[int], target: int) -> int:
    sums = [nums[i] + nums[j] for i in range(len(nums)) for j in range(i + 1, len(nums))]
    return min(sums, key=lambda s: (abs(s - target), s))
""", cases=[([[1, 4, 7, 10], 12], 11), ([[1, 2], 100], 3), ([[5, 5, 3], 10], 10), ([[-3, 1, 4], 2], 1), ([[1, 3, 6], 6], 7), ([[2, 4, 6], 7], 6)]),
    dict(split="train", difficulty="easy", task="returns the sum of the first half of `nums` minus the sum of its second half, where each half has len(nums) // 2 numbers (with an odd length the middle number belongs to neither half; 0 for an empty list).", ref="""
def halves_difference(nums: list[int]) -> int:
    h = len(nums) // 2
    return sum(nums[:h]) - sum(nums[len(nums) - h:])
""", cases=[([[5, 1, 9, 2, 3]], 1), ([[1, 2, 3, 4]], -4), ([[]], 0), ([[7]], 0), ([[10, 4]], 6), ([[1, 2, 3, 4, 5, 6]], -9)]),
    dict(split="train", difficulty="medium", task="repeatedly replaces the list `nums` by the list of sums of its neighbouring pairs (one number shorter each time) until a single number remains, and returns that number (0 for an empty list).", ref="""
def triangle_reduce(nums: list[int]) -> int:
    while len(nums) > 1:
        nums = [a + b for a, b in zip(nums, nums[1:])]
    return sum(nums)
""", cases=[([[1, 2, 3, 4]], 20), ([[]], 0), ([[5]], 5), ([[1, 1]], 2), ([[1, -1, 1]], 0), ([[2, 0, 0, 0, 1]], 3)],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="easy", task="returns a list in which every item of `items` appears `n` times in a row, keeping the original order of the items (`n` >= 0).", ref="""
def repeat_each(items: list, n: int) -> list:
    return [x for x in items for _ in range(n)]
""", cases=[([[1, 2, 3], 2], [1, 1, 2, 2, 3, 3]), ([["a"], 3], ["a", "a", "a"]), ([[1, 2], 0], []), ([[], 4], []), ([[5, 6], 1], [5, 6])]),
    dict(split="train", difficulty="hard", task="returns the length of the longest contiguous sub-list of `bits` (a list of 0s and 1s) that contains equally many 0s and 1s (0 if there is none).", ref="""
def longest_balanced_bits(bits: list[int]) -> int:
    first = {0: -1}
    best = bal = 0
    for i, b in enumerate(bits):
        bal += 1 if b == 1 else -1
        if bal in first:
            best = max(best, i - first[bal])
        else:
            first[bal] = i
    return best
""", cases=[([[0, 1, 1, 0, 1, 1, 1, 0]], 4), ([[]], 0), ([[1, 1, 1]], 0), ([[0, 1]], 2), ([[1, 0, 1, 0]], 4), ([[1, 1, 0]], 2), ([[0, 0, 1, 0, 1, 1, 1]], 6)],
         survivors=["line 5: op -> Sub", "line 5: ops -> NotEq", "line 5: value -> 0"]),
    dict(split="train", difficulty="easy", task="returns the sum of `nums` after removing one occurrence of its smallest number and one occurrence of its largest number (0 if `nums` has fewer than three numbers).", ref="""
def sum_excluding_extremes(nums: list[int]) -> int:
    if len(nums) < 3:
        return 0
    return sum(nums) - min(nums) - max(nums)
""", cases=[([[4, 1, 7, 3]], 7), ([[1, 2]], 0), ([[5]], 0), ([[]], 0), ([[3, 3, 3]], 3), ([[10, -2, 4, 0]], 4)],
         survivors=["line 2: value -> 2"]),
    dict(split="train", difficulty="medium", task="returns the list of pairs `[a[i], b[i]]` for every position i up to the length of the longer of the two lists, using `fill` in place of the missing items of the shorter list.", ref="""
def pair_up_padded(a: list, b: list, fill) -> list[list]:
    n = max(len(a), len(b))
    return [[a[i] if i < len(a) else fill, b[i] if i < len(b) else fill] for i in range(n)]
""", cases=[([[1, 2, 3], ["a"], None], [[1, "a"], [2, None], [3, None]]), ([[], [], 0], []), ([[], [5, 6], 0], [[0, 5], [0, 6]]), ([[1, 2], [3, 4], 9], [[1, 3], [2, 4]]), ([["x"], [], "-"], [["x", "-"]])]),
    dict(split="train", difficulty="easy", task="returns the index of the last occurrence of `x` in `items` minus the index of its first occurrence (0 if `x` occurs once), or -1 if `x` does not occur.", ref="""
def span_of_value(items: list, x) -> int:
    idx = [i for i, v in enumerate(items) if v == x]
    return idx[-1] - idx[0] if idx else -1
""", cases=[([["a", "b", "a", "c", "a", "d"], "a"], 4), ([[1, 2, 3], 2], 0), ([[1, 2], 5], -1), ([[], 0], -1), ([[7, 7], 7], 1), ([[1, 2, 1, 3], 1], 2)]),
    dict(split="train", difficulty="medium", task="returns a copy of `nums` in which the even numbers are sorted in ascending order among the positions that hold even numbers, while every odd number stays at its own position.", ref="""
def sort_evens_in_place(nums: list[int]) -> list[int]:
    it = iter(sorted(x for x in nums if x % 2 == 0))
    return [next(it) if x % 2 == 0 else x for x in nums]
""", cases=[([[8, 3, 2, 7, 4, 6]], [2, 3, 4, 7, 6, 8]), ([[]], []), ([[5, 3, 1]], [5, 3, 1]), ([[4, 2]], [2, 4]), ([[1, -2, 9, -6]], [1, -6, 9, -2]), ([[0, 11, -4]], [-4, 11, 0])]),
    dict(split="train", difficulty="easy", task="returns True if the lists `a` and `b` contain the same distinct values, ignoring their order and how often each value repeats, and False otherwise.", ref="""
def same_elements(a: list, b: list) -> bool:
    return set(a) == set(b)
""", cases=[([[1, 2, 2, 3], [3, 1, 2]], True), ([[1, 2], [1, 2, 4]], False), ([[], []], True), ([[1], []], False), ([["a", "b"], ["b", "a", "a"]], True)]),
]
