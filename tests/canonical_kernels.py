"""Plain-Python functions with every jump shape, for the canonicalization tests (their source is
read, so they live in a file)."""


def early_return_in_if(x):
    if x > 2:
        return x * 10
    y = x + 1
    if y > 2:
        return y
    return -x


def return_in_loop(n):
    total = 0
    for i in range(n):
        total = total + i
        if total > 10:
            return total * 100
    return total


def return_in_nested_loops(n):
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return i * 10 + j
    return -1


def falls_off(x):
    if x > 0:
        return x


def break_and_continue(n):
    acc = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        acc = acc + i
        if acc > 20:
            break
        acc = acc * 2
    return acc


def for_else(n, k):
    for i in range(n):
        if i == k:
            found = i
            break
    else:
        found = -1
    return found


def while_true_break(x):
    steps = 0
    while True:
        if x == 1:
            break
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps = steps + 1
    return steps


def nested_break_inner_only(n):
    count = 0
    for i in range(n):
        j = 0
        while j < n:
            if j > i:
                break
            count = count + 1
            j = j + 1
        else:
            count = count + 100
    return count


def while_else_continue(n):
    i = 0
    out = 0
    while i < n:
        i = i + 1
        if i % 2:
            continue
        out = out + i
    else:
        out = out + 1000
    return out


def return_in_while_in_if(x, flag):
    if flag:
        while x < 100:
            x = x * 3
            if x % 7 == 0:
                return -x
    return x


def return_in_loop_with_else(n, k):
    for i in range(n):
        if i == k:
            return i * 2
    else:
        n = n + 100
    return n
