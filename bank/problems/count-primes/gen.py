def generate(n):
    return f"{n}\n"
