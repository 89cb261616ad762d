import unittest


class MathTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(1 + 1, 2)

    def test_mul(self):
        self.assertEqual(2 * 3, 6)

    def test_div(self):
        self.assertEqual(7 // 2, 3)
