# Command-line helpers the analysis scripts share.


def take_option(args, name, default):
    """The value after `name` in `args` (removed from it with its value), or default."""
    if name not in args:
        return default
    i = args.index(name)
    if i + 1 >= len(args):
        raise SystemExit(f'{name} needs a value')
    value = args[i + 1]
    del args[i:i + 2]
    return value
