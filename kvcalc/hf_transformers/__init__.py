"""The ``transformers`` runtime: Hugging Face transformers' ``generate`` with its default DynamicCache.

``engine``  :data:`~kvcalc.hf_transformers.engine.ENGINE`: the unpaged planning of kvcalc.ideal with
            the prefill's activation peak and measured non-torch memory as overhead, layers split over
            GPUs as pipeline stages (``device_map="auto"``).
"""
