import unittest


class StringTest(unittest.TestCase):
    def test_upper(self):
        self.assertEqual("a".upper(), "A")

    def test_split(self):
        self.assertEqual("a,b".split(","), ["a", "b"])

    def test_broken(self):
        self.assertEqual("abc"[::-1], "abc")
