"""One cc_test per source file `<name>.cc`, each linking tessel, the test helpers and gtest."""

def tessel_tests(names, sizes = {}, deps = [], tags = [], data = [], env = {}):
    for name in names:
        native.cc_test(
            name = name,
            size = sizes.get(name, "small"),
            linkstatic = True,
            srcs = [name + ".cc"],
            tags = tags,
            data = data,
            env = env,
            deps = [
                "//:tessel",
                "//tests:test_util",
                "@gtest//:gtest_main",
            ] + deps,
        )
