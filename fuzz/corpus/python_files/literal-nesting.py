x = {'a': [1, (2, {'b': r'\'})], 'c': '''t
'''}
cuda: Optional[str] = None
