"""The nine disability categories of the inclusivity audit and the 0–3 depth rubric.

The one home of the taxonomy: judges, prompts, metric views and the report all read it from here.
Category names are the study's published abbreviations, so our rows join the published ones as is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    name: str  # as published: "Vision", "Gen/Dev", …
    description: str  # what the category takes in, in one line (LLM prompt, embedding anchor)
    supports: tuple[str, ...]  # examples of concrete supports (embedding exemplars; never a checklist)


CATEGORIES: tuple[Category, ...] = (
    Category("Vision", "vision disabilities: blindness, low vision and colour blindness",
             ("screen readers read interface text aloud for blind users",
              "braille displays and embossed signage", "large print and screen magnification for low vision",
              "high contrast and colour schemes that do not rely on colour alone", "tactile paving and tactile maps",
              "audio description of visual content", "guide dogs and white canes for navigation",
              "text alternatives and long descriptions for images", "text that reflows when zoomed to 400 percent",
              "tactile buttons and raised or notched markings", "speech output and spoken announcements on machines",
              "sighted guiding and describing the surroundings aloud")),
    Category("Hearing", "hearing disabilities: deafness and hearing loss",
             ("captions and subtitles on video", "sign language interpreters", "hearing loops and assistive "
              "listening systems", "visual or vibrating alarms instead of sound alone", "real-time transcription "
              "of speech to text", "text relay and messaging instead of phone calls", "transcripts of audio and video",
              "vibrating pagers and flashing doorbells", "display screens that show spoken announcements",
              "facing people and not covering your mouth so they can lip-read")),
    Category("Speech", "speech disabilities: conditions that affect the clarity or production of speech",
             ("augmentative and alternative communication devices", "text-to-speech apps that speak typed words",
              "letting people answer in writing or chat instead of speaking", "extra time and patience in "
              "spoken conversation", "voice assistants that tolerate atypical speech",
              "communication boards and picture symbols", "typed or chat alternatives to speaking aloud",
              "speech and language therapy")),
    Category("Mobility", "mobility disabilities: limitations in physical movement, including wheelchair users",
             ("ramps, lifts and step-free entrances", "wide doors and accessible toilets",
              "accessible parking close to the entrance", "adjustable desks and reachable controls",
              "keyboard-only and switch access to computers", "accessible public transport with low floors",
              "level paths of travel without steps", "lowered counters and controls within reach from a seat",
              "evacuation chairs and refuge points", "eye gaze, sip-and-puff input and large touch targets",
              "roll-in showers, grab rails and ceiling hoists", "wheelchair spaces and securement areas on buses")),
    Category("Neuro", "neurological conditions such as epilepsy, Parkinson's disease and multiple sclerosis",
             ("avoiding flashing content that can trigger seizures", "seizure first-aid training for staff",
              "flexible schedules for fluctuating symptoms and fatigue", "controls that tolerate tremor",
              "rest areas and seating for people with fatigue", "epilepsy care plans and staff who know seizure "
              "first aid", "rest breaks and time off for treatment")),
    Category("Gen/Dev", "genetic and developmental conditions such as Down syndrome and Fragile X syndrome",
             ("easy-read materials with pictures", "supported employment and job coaching",
              "inclusive education with individual support plans", "simple step-by-step instructions",
              "early intervention and developmental support", "supported decision-making with a trusted person",
              "short sentences and everyday words with a picture beside each idea")),
    Category("Learning", "specific learning disabilities: dyslexia, dysgraphia and dyscalculia",
             ("dyslexia-friendly fonts and layout", "text-to-speech for reading", "speech-to-text instead of "
              "handwriting", "calculators and number aids", "extra time on tests and assignments",
              "spell checkers and reading rulers", "readers and scribes in exams", "reading pens and coloured "
              "overlays", "lecture recordings and note-takers")),
    Category("Sens/Cog", "sensory-processing and cognitive differences such as autism and ADHD",
             ("quiet rooms and low-sensory spaces", "noise-cancelling headphones", "clear routines and predictable "
              "schedules", "reduced distractions and focus tools", "plain language and clear expectations",
              "advance information about what to expect", "sensory-friendly hours with dimmed lights and no music",
              "visual stories and photos sent before a visit", "help and navigation in the same place on every page",
              "animations and autoplay that can be switched off", "ear defenders and fidget tools")),
    Category("Mental", "mental health conditions such as depression, anxiety and bipolar disorder",
             ("access to counselling and mental health services", "flexible work and leave for mental health",
              "peer support groups", "reducing stigma through awareness training", "crisis support lines",
              "reasonable adjustments for people with anxiety", "a quiet room to withdraw to when distressed",
              "befriending schemes and listening services", "wellbeing check-ins and phased returns to work",
              "de-escalation and trauma-informed care")),
)
CATEGORY_NAMES: tuple[str, ...] = tuple(c.name for c in CATEGORIES)
BY_NAME: dict[str, Category] = {c.name: c for c in CATEGORIES}

# Depth, the same scale for every judge. "Concrete support" = a named assistive technology,
# accommodation, design feature, service or practice that serves the category.
DEPTH_RUBRIC: tuple[str, ...] = (
    "0: the category is not mentioned",
    "1: mentioned only in general terms, with no concrete support (e.g. 'blind people face barriers')",
    "2: one or two concrete supports (e.g. 'blind people may use screen readers')",
    "3: three or more distinct concrete supports (e.g. 'screen readers, braille displays and tactile maps')",
)
MAX_DEPTH = 3


def depth_from_supports(mentioned: bool, supports: int) -> int:
    """The rubric's depth for a category that is (or is not) mentioned with `supports` distinct supports."""
    if supports >= 3:
        return 3
    if supports >= 1:
        return 2
    return 1 if mentioned else 0
